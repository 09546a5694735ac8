package redisconn

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/testenv"
)

// tls: true reaches a TLS-only server when tls_ca_file names its CA (by
// its address or by tls_server_name), and not without it.
func TestTLS(t *testing.T) {
	srv := testenv.StartRedisTLS(t)
	t.Setenv("RC_TEST_TLS_ADDR", srv.Addr)
	ping := func(p Params) error {
		c, err := New(p, Tuning{DialTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return c.Ping(ctx).Err()
	}
	base := Params{AddrEnv: "RC_TEST_TLS_ADDR"}
	withCA := base
	withCA.TLS, withCA.TLSCAFile = true, srv.CAFile
	if err := ping(withCA); err != nil {
		t.Fatalf("tls with the CA: %v", err)
	}
	named := withCA
	named.TLSServerName = "redis.test"
	if err := ping(named); err != nil {
		t.Fatalf("tls with the CA and the server's name: %v", err)
	}
	wrongName := withCA
	wrongName.TLSServerName = "other.test"
	if err := ping(wrongName); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a name the certificate does not hold: %v", err)
	}
	systemRoots := base
	systemRoots.TLS = true
	if err := ping(systemRoots); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("the system's roots trusted the test CA: %v", err)
	}
	if err := ping(base); err == nil {
		t.Fatal("plain TCP got an answer from a TLS-only server")
	}
}
