package testenv

import (
	"os"
	"testing"
)

// NginxEnv names the nginx binary scripts/services.sh found.
const NginxEnv = "HOOKGATE_NGINX"

// Nginx returns the path of the nginx binary (HOOKGATE_NGINX, else
// Debian's /usr/sbin/nginx), or skips t (fails it when services are
// required).
func Nginx(t testing.TB) string {
	t.Helper()
	if v := os.Getenv(NginxEnv); v != "" {
		return v
	}
	if st, err := os.Stat("/usr/sbin/nginx"); err == nil && !st.IsDir() {
		return "/usr/sbin/nginx"
	}
	return service(t, NginxEnv, "nginx")
}
