package redisconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Tuning is what a caller sets on its own client. Every client bounds its
// calls by the caller's context, dials once per attempt and never retries
// a command on a connection that failed (a retried INCR could count a call
// twice); a Cluster client still follows MOVED and ASK redirects, which a
// node answers without running the command.
type Tuning struct {
	// PoolSize is the connections per node; 0 leaves go-redis's default.
	PoolSize int
	// DialTimeout bounds a dial; 0 means 2 s.
	DialTimeout time.Duration
	// ReadTimeout and WriteTimeout bound a reply and a write on top of the
	// context; 0 leaves go-redis's defaults.
	ReadTimeout, WriteTimeout time.Duration
}

// New builds the client p describes, reading its address and secrets from
// the variables p names. It does not connect (the first command does), so
// a configuration loads while Redis is down. Errors name variables, never
// their values.
func New(p Params, t Tuning) (redis.UniversalClient, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	user, err := secret("username_env", p.UsernameEnv)
	if err != nil {
		return nil, err
	}
	pass, err := secret("password_env", p.PasswordEnv)
	if err != nil {
		return nil, err
	}
	tlsCfg, err := p.tlsConfig()
	if err != nil {
		return nil, err
	}
	switch p.Mode() {
	case Sentinel:
		sUser, err := secret("sentinel_username_env", p.SentinelUsernameEnv)
		if err != nil {
			return nil, err
		}
		sPass, err := secret("sentinel_password_env", p.SentinelPasswordEnv)
		if err != nil {
			return nil, err
		}
		o := t.universal(user, pass, tlsCfg)
		o.MasterName, o.Addrs = p.MasterName, p.SentinelAddrs
		o.SentinelUsername, o.SentinelPassword = sUser, sPass
		return redis.NewFailoverClient(o.Failover()), nil
	case Cluster:
		o := t.universal(user, pass, tlsCfg)
		o.Addrs = p.ClusterAddrs
		// NewClusterClient, not NewUniversalClient: one seed address is
		// still a cluster.
		return redis.NewClusterClient(o.Cluster()), nil
	}
	env := p.addrEnv()
	addr := strings.TrimSpace(os.Getenv(env))
	if addr == "" {
		return nil, fmt.Errorf("addr_env: %s is not set", env)
	}
	var opt *redis.Options
	if strings.Contains(addr, "://") {
		if opt, err = redis.ParseURL(addr); err != nil {
			// The URL may hold a password: name the variable, not its value.
			return nil, fmt.Errorf("addr_env: %s does not hold a valid redis URL", env)
		}
		if opt.Password != "" && p.PasswordEnv != "" {
			return nil, fmt.Errorf("password_env: %s's URL holds a password already; keep one of the two", env)
		}
	} else {
		opt = &redis.Options{Addr: addr}
	}
	if user != "" {
		opt.Username = user
	}
	if pass != "" {
		opt.Password = pass
	}
	if tlsCfg != nil {
		opt.TLSConfig = tlsCfg
	}
	u := t.universal("", "", nil)
	opt.ContextTimeoutEnabled = u.ContextTimeoutEnabled
	opt.MaxRetries = u.MaxRetries
	opt.DialTimeout = u.DialTimeout
	opt.DialerRetries = u.DialerRetries
	opt.ReadTimeout, opt.WriteTimeout = u.ReadTimeout, u.WriteTimeout
	if u.PoolSize > 0 {
		opt.PoolSize = u.PoolSize
	}
	opt.DisableIdentity = u.DisableIdentity
	opt.MaintNotificationsConfig = u.MaintNotificationsConfig
	return redis.NewClient(opt), nil
}

// universal is the one option set every client shares, Sentinel, Cluster
// or a single server: the caller's context bounds each call, a dial is
// tried once (a refused connection fails the call at once), a failed
// command is never retried, the client announces no library identity, and
// maintenance notifications are off (a Sentinel client has none to turn
// off: go-redis's Failover drops the field). A single server's client
// copies it onto the options its URL gave.
func (t Tuning) universal(user, pass string, tlsCfg *tls.Config) *redis.UniversalOptions {
	if t.DialTimeout == 0 {
		t.DialTimeout = 2 * time.Second
	}
	return &redis.UniversalOptions{
		Username:  user,
		Password:  pass,
		TLSConfig: tlsCfg,

		ContextTimeoutEnabled:    true,
		MaxRetries:               -1,
		DialTimeout:              t.DialTimeout,
		DialerRetries:            1,
		ReadTimeout:              t.ReadTimeout,
		WriteTimeout:             t.WriteTimeout,
		PoolSize:                 t.PoolSize,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
}

// secret reads the variable env names; "" when env is "" (no secret).
func secret(field, env string) (string, error) {
	if env == "" {
		return "", nil
	}
	v, ok := os.LookupEnv(env)
	if !ok || v == "" {
		return "", fmt.Errorf("%s: %s is not set", field, env)
	}
	return v, nil
}

// tlsConfig is nil without tls: true; otherwise TLS 1.2 or later, trusting
// tls_ca_file when set and the system's roots when not.
func (p *Params) tlsConfig() (*tls.Config, error) {
	if !p.TLS {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: p.TLSServerName}
	if p.TLSCAFile != "" {
		pem, err := os.ReadFile(p.TLSCAFile)
		if err != nil {
			return nil, fmt.Errorf("tls_ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New("tls_ca_file: " + p.TLSCAFile + " holds no PEM certificate")
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}
