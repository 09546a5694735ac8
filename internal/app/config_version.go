package app

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/config"
)

// configVersion says which configuration an instance serves: the hash of
// its files, when it was applied, and which files they were. Instances
// given identical files report the same hash, wherever the files lie.
type configVersion struct {
	Hash      string    `json:"hash"`
	AppliedAt time.Time `json:"applied_at"`
	Files     []string  `json:"files"`
}

// configHash hashes the content of the files a configuration was read
// from, as the operator wrote them: the main file, then each tenant's
// hooks file under the tenant's id and the name the main file gives it.
// These are the files Watch watches. ${NAME} references are hashed as
// written, never their values, so no secret enters the hash; two
// instances whose environments differ report the same hash. A file that
// cannot be read counts as missing. A configuration not read from a file
// (config.Parse in tests) has the hash of no file.
//
// The files are read again here, just after the configuration was loaded
// from them: an edit landing in between is hashed ahead of its reload,
// which follows at the next look of Watch.
func configHash(cfg *config.Config) (string, []string) {
	h := sha256.New()
	h.Write([]byte("hookgate-config-v1\n"))
	var files []string
	if cfg.Path != "" {
		files = append(files, absPath(cfg.Path))
		hashFile(h, "main", cfg.Path)
	}
	for _, t := range cfg.Tenants {
		if t.HooksFile == "" {
			continue
		}
		f := t.HooksFile
		if !filepath.IsAbs(f) {
			f = filepath.Join(cfg.BaseDir, f)
		}
		files = append(files, f)
		hashFile(h, "tenant "+t.ID+" "+t.HooksFile, f)
	}
	if files == nil {
		files = []string{}
	}
	return hex.EncodeToString(h.Sum(nil)), files
}

// hashFile adds a labelled, length-prefixed file to h, so that no two
// sets of files hash alike by moving bytes between them.
func hashFile(h hash.Hash, label, path string) {
	writeField(h, []byte(label))
	b, err := os.ReadFile(path)
	if err != nil {
		writeField(h, []byte("\x00missing"))
		return
	}
	writeField(h, b)
}

func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// configApplied records cfg as the configuration served from now on: its
// version for /admin/config/version, hookgate_config_info{hash} (only the
// current hash has a series) and a log line with the hash.
func (a *App) configApplied(cfg *config.Config, how string) {
	sum, files := configHash(cfg)
	v := &configVersion{Hash: sum, AppliedAt: time.Now().UTC(), Files: files}
	a.version.Store(v)
	a.configInfo.Reset()
	a.configInfo.WithLabelValues(sum).Set(1)
	a.log.Info("configuration applied", "how", how, "hash", sum, "files", files)
}

// newConfigInfo is hookgate_config_info{hash}.
func newConfigInfo(reg prometheus.Registerer) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "hookgate_config_info",
		Help: "The configuration served now: 1 for the hash of its files (GET /admin/config/version tells more).",
	}, []string{"hash"})
	reg.MustRegister(g)
	return g
}

// ConfigVersion is the version of the configuration served now, as
// GET /admin/config/version answers it.
func (a *App) ConfigVersion() any { return a.version.Load() }
