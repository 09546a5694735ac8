package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/store"
)

// registerCoordination exposes, on a PostgreSQL store, whether this
// instance hears other instances' changes as they happen (1) or is
// polling for them (0): approvals every 500 ms, the read-only switch
// every second.
func registerCoordination(reg prometheus.Registerer, st *store.Store) {
	if st.Driver() != store.Postgres {
		return
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hookgate_store_notifications_live",
		Help: "1 while the store's listener hears other instances' approval answers and switch changes; 0 while they are polled.",
	}, func() float64 {
		if st.Live() {
			return 1
		}
		return 0
	}))
}
