package oracle

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nodeCorpusDir is the committed corpus e2e/oracle_node_test.go replays
// through hookgate to the Node SDKs.
const nodeCorpusDir = "../e2e/node/oracle-corpus"

// writeCorpusEnv regenerates the corpus instead of checking it.
const writeCorpusEnv = "HOOKGATE_WRITE_NODE_CORPUS"

// corpusEntry is one line of the corpus manifest.
type corpusEntry struct {
	Name   string `json:"name"`
	Class  string `json:"class"`
	API    string `json:"api"` // chat-sse, chat-json, responses-sse, ...
	File   string `json:"file"`
	Status int    `json:"status,omitempty"` // 0 means 200
}

// corpusFixtures are the recordings the corpus mutates, one per format.
var corpusFixtures = []string{
	"openai/chat-gpt4o-parallel-tools-small.sse",
	"openai/chat-gpt4o-parallel-tool-calls.json",
	"openai-responses/gpt4o-function-call-args-8-deltas.sse",
	"openai-responses/gpt4o-two-function-calls.json",
	"anthropic/messages-text-then-two-tool-use-ping-padding.sse",
	"anthropic/messages-two-tool-use.json",
}

// corpusParams are a few choices per class: four different member keys
// for the classes that rewrite one, two variants for the others.
func corpusParams(name string) [][]byte {
	switch name {
	case "key-escape", "key-case", "key-fold", "dup-key-decoy-first", "dup-key-decoy-last":
		return [][]byte{{0, 0, 0}, {2, 1, 0}, {4, 0, 0}, {6, 1, 0}}
	}
	ps := tableParams(name)
	if len(ps) > 2 {
		ps = ps[:2]
	}
	return ps
}

// buildCorpus is the corpus as files (path relative to the corpus folder
// to bytes), the manifest among them.
func buildCorpus(t *testing.T) map[string][]byte {
	files := map[string][]byte{}
	var manifest []corpusEntry
	for _, smp := range samplesByRel(t, corpusFixtures) {
		for _, c := range classes {
			if !c.fits(smp.api) {
				continue
			}
			seen := map[[32]byte]bool{}
			for _, ps := range corpusParams(c.name) {
				m := mutant{api: smp.api, body: append([]byte(nil), smp.body...)}
				if !c.apply(&m, &params{b: ps}) {
					continue
				}
				key := sha256.Sum256(append(m.body, byte(m.status), byte(m.status>>8)))
				if seen[key] {
					continue
				}
				seen[key] = true
				ext := ".json"
				if smp.api.streamed() {
					ext = ".sse"
				}
				base := strings.TrimSuffix(filepath.Base(smp.rel), filepath.Ext(smp.rel))
				file := fmt.Sprintf("%s/%s-%x%s", c.name, base, ps, ext)
				files[file] = m.body
				manifest = append(manifest, corpusEntry{
					Name:   fmt.Sprintf("%s: %s %v", c.name, smp.rel, ps),
					Class:  c.name,
					API:    smp.api.String(),
					File:   file,
					Status: m.status,
				})
			}
		}
	}
	doc, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	files["manifest.json"] = append(doc, '\n')
	return files
}

// TestWriteNodeCorpus checks that the committed Node corpus is what the
// mutation classes make of the recordings today; with
// HOOKGATE_WRITE_NODE_CORPUS=1 it writes it instead.
func TestWriteNodeCorpus(t *testing.T) {
	files := buildCorpus(t)
	if os.Getenv(writeCorpusEnv) == "1" {
		if err := os.RemoveAll(nodeCorpusDir); err != nil {
			t.Fatal(err)
		}
		for rel, b := range files {
			p := filepath.Join(nodeCorpusDir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %d files to %s", len(files), nodeCorpusDir)
		return
	}
	stale := 0
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(nodeCorpusDir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			stale++
			if stale <= 5 {
				t.Errorf("%s/%s is missing or differs from what the mutation classes make today", nodeCorpusDir, rel)
			}
		}
	}
	if stale > 0 {
		t.Fatalf("%d corpus files are stale: regenerate with %s=1 go test ./oracle -run TestWriteNodeCorpus", stale, writeCorpusEnv)
	}
}
