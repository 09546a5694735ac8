package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/oracle"
)

// oracleCorpusDir holds the differential corpus the oracle package writes:
// recorded streams and bodies mutated in every class where a client reads
// a response differently from hookgate, with a manifest.
const oracleCorpusDir = "node/oracle-corpus"

type oracleCorpusEntry struct {
	Name   string `json:"name"`
	Class  string `json:"class"`
	API    string `json:"api"`
	File   string `json:"file"`
	Status int    `json:"status"`
}

type oracleNodeCase struct {
	Name          string `json:"name"`
	Class         string `json:"class"`
	API           string `json:"api"`
	Model         string `json:"model"`
	KnownFailOpen string `json:"knownFailOpen,omitempty"`
}

// TestNodeOracleCorpus serves every file of the corpus from the mock
// through a hookgate that blocks every tool call, and has the Node SDKs
// (openai on chat and Responses, streamed, with their stream helpers, and
// plain; @anthropic-ai/sdk on Messages likewise) read it: none may read a
// call. Classes still listed in oracle.KnownFailOpen are skipped loudly
// when they leak.
func TestNodeOracleCorpus(t *testing.T) {
	node, dir := nodeDir(t)
	doc, err := os.ReadFile(filepath.Join(oracleCorpusDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []oracleCorpusEntry
	if err := json.Unmarshal(doc, &entries); err != nil {
		t.Fatal(err)
	}
	s := startStack(t, blockEveryTool)
	claude := startApp(t, "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: claude\n    provider: anthropic\n    base_url: "+s.mock.URL()+"\n"+blockEveryTool)

	byModel := map[string]mockupstream.Response{}
	var cases []oracleNodeCase
	for i, e := range entries {
		body, err := os.ReadFile(filepath.Join(oracleCorpusDir, filepath.FromSlash(e.File)))
		if err != nil {
			t.Fatal(err)
		}
		var r mockupstream.Response
		if strings.HasSuffix(e.API, "-sse") {
			r = mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent})
		} else {
			r = mockupstream.JSON(200, body)
		}
		if e.Status != 0 {
			r.Status = e.Status
		}
		model := "oracle-" + strconv.Itoa(i)
		byModel[model] = r
		c := oracleNodeCase{Name: e.Name, Class: e.Class, API: e.API, Model: model}
		if fo := oracle.KnownFailOpen[e.Class]; fo.Node {
			c.KnownFailOpen = fo.Until
		}
		cases = append(cases, c)
	}
	s.mock.Handle(func(r *mockupstream.Request) mockupstream.Response {
		model := gjson.GetBytes(r.Body, "model").String()
		if resp, ok := byModel[model]; ok {
			return resp
		}
		return mockupstream.Error(404, "model_not_found", "no case for model "+strconv.Quote(model))
	})
	casesDoc, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	casesFile := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(casesFile, casesDoc, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "oracle-corpus.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"HOOKGATE_BASE_URL="+s.app.URL(),
		"HOOKGATE_ANTHROPIC_URL="+claude.URL(),
		"HOOKGATE_CASES="+casesFile,
		"NO_COLOR=1",
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("node --test oracle-corpus.test.mjs failed (%v) after %s:\n%s", err, time.Since(start).Round(time.Millisecond), out.String())
	}
	m := nodeTestCount.FindSubmatch(out.Bytes())
	if m == nil {
		t.Fatalf("node printed no test count:\n%s", out.String())
	}
	if n, _ := strconv.Atoi(string(m[1])); n < len(cases) {
		t.Fatalf("node ran %d tests for %d cases:\n%s", n, len(cases), out.String())
	}
	skipped := strings.Count(out.String(), "KNOWN FAIL-OPEN")
	t.Logf("node read %d corpus files in %s; %d readings skipped as known fail-open\n%s", len(cases), time.Since(start).Round(time.Millisecond), skipped, out.String())
}
