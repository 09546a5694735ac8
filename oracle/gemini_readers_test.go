package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"google.golang.org/genai"
)

// geminiOraclesFor lists the readers of a form: genai-go's own client
// where it reads the form, and the lenient reader everywhere.
func geminiOraclesFor(f geminiForm) []oracle {
	read := func(ctx context.Context, base, model string) reading { return geminiLenient(ctx, f, base, model) }
	switch f {
	case geminiSSE:
		return []oracle{{"genai-go GenerateContentStream", genaiStream}, {"lenient", read}}
	case geminiPlain:
		return []oracle{{"genai-go GenerateContent", genaiPlain}, {"lenient", read}}
	}
	return []oracle{{"lenient", read}}
}

func genaiClient(ctx context.Context, base string) (*genai.Client, error) {
	return genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: "oracle-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: base},
		HTTPClient:  httpClient(),
	})
}

func addGenaiResponse(r *reading, where string, resp *genai.GenerateContentResponse) {
	if resp == nil {
		return
	}
	for i, c := range resp.Candidates {
		if c == nil || c.Content == nil {
			continue
		}
		for j, p := range c.Content.Parts {
			if p == nil || p.FunctionCall == nil {
				continue
			}
			args, _ := json.Marshal(p.FunctionCall.Args)
			// A FunctionCall part is a call whatever it holds: an empty
			// name is still a call a client dispatches on.
			r.Calls = append(r.Calls, call{Oracle: r.Oracle, Where: fmt.Sprintf("%s candidates[%d].content.parts[%d]", where, i, j), Name: p.FunctionCall.Name, Args: string(args)})
		}
	}
}

// genaiStream counts every FunctionCall part genai-go's stream yields; an
// error or a panic ends the read, and the calls yielded before it count.
func genaiStream(ctx context.Context, base, model string) (r reading) {
	r = reading{Oracle: "genai-go GenerateContentStream"}
	defer func() {
		if v := recover(); v != nil {
			r.Err = fmt.Sprintf("panic: %v", v)
		}
	}()
	c, err := genaiClient(ctx, base)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	n := 0
	for resp, err := range c.Models.GenerateContentStream(ctx, model, genai.Text("run it"), nil) {
		if err != nil {
			r.Err = err.Error()
			return r
		}
		addGenaiResponse(&r, fmt.Sprintf("response %d", n), resp)
		n++
	}
	return r
}

func genaiPlain(ctx context.Context, base, model string) (r reading) {
	r = reading{Oracle: "genai-go GenerateContent"}
	defer func() {
		if v := recover(); v != nil {
			r.Err = fmt.Sprintf("panic: %v", v)
		}
	}()
	c, err := genaiClient(ctx, base)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	resp, err := c.Models.GenerateContent(ctx, model, genai.Text("run it"), nil)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	addGenaiResponse(&r, "response", resp)
	return r
}

// geminiLenient fetches the form's answer with a plain HTTP client and
// reads it as the most lenient of the other clients would: every SSE
// payload by the spec's rules and line by line, every element of an array
// up to the first fault, and in each payload any member that folds to
// functionCall (case, '_', Unicode simple folding: encoding/json's
// matching, protobuf JSON's snake_case, JS's exact keys) with an object
// value, under any member folding to candidates, content and parts, every
// duplicate of each key looked into.
func geminiLenient(ctx context.Context, f geminiForm, base, model string) reading {
	r := reading{Oracle: "lenient"}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+f.path(model), strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"run it"}]}]}`))
	if err != nil {
		r.Err = err.Error()
		return r
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-goog-api-key", "oracle-key")
	resp, err := httpClient().Do(req)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		r.Err = err.Error()
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Every client reads such a status as an error.
		r.Err = fmt.Sprintf("status %d", resp.StatusCode)
		return r
	}
	var payloads []string
	switch f {
	case geminiSSE:
		payloads = append(sseSpecPayloads(body), sseLinePayloads(body)...)
	case geminiArray:
		payloads = arrayElements(body)
	default:
		payloads = []string{string(body)}
	}
	seen := map[string]bool{}
	for i, p := range payloads {
		for _, c := range lenientCalls(p) {
			c.Oracle = r.Oracle
			c.Where = fmt.Sprintf("payload %d %s", i, c.Where)
			if !seen[c.Where+c.Name+c.Args] {
				seen[c.Where+c.Name+c.Args] = true
				r.Calls = append(r.Calls, c)
			}
		}
	}
	return r
}

// sseSpecPayloads are the events' data as the SSE spec reads them (lines
// end at CRLF, LF or CR; data lines joined by LF; a pending event at EOF
// dispatched too, as several clients do).
func sseSpecPayloads(body []byte) []string {
	var out []string
	var data []string
	have := false
	for _, e := range splitSSE(bytes.TrimPrefix(body, []byte("\uFEFF"))) {
		for _, l := range e.lines {
			name, value, _ := strings.Cut(l.text, ":")
			if name == "data" {
				data = append(data, strings.TrimPrefix(value, " "))
				have = true
			}
		}
		if have {
			out = append(out, strings.Join(data, "\n"))
		}
		data, have = nil, false
	}
	return out
}

// sseLinePayloads are the values of every line that starts, after any
// space or BOM, with data: in any case: a reader that takes each data line
// as one payload.
func sseLinePayloads(body []byte) []string {
	var out []string
	for _, e := range splitSSE(body) {
		for _, l := range e.lines {
			t := strings.TrimLeft(l.text, " \t\uFEFF")
			if len(t) >= 5 && strings.EqualFold(t[:5], "data:") {
				out = append(out, strings.TrimSpace(t[5:]))
			}
		}
	}
	return out
}

// arrayElements are the elements of a JSON array read one at a time, up
// to the first fault.
func arrayElements(body []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(body, []byte("\uFEFF"))))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return []string{string(body)}
	}
	var out []string
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		out = append(out, string(raw))
	}
	return out
}

// jnode is a JSON value with every member of its objects kept, duplicates
// included, in order.
type jnode struct {
	members []jmember
	elems   []*jnode
	object  bool
	array   bool
	scalar  any
}

type jmember struct {
	key string
	val *jnode
}

// parseJNode reads one JSON value; on a fault it keeps what it read
// (a streaming reader acts on what came before).
func parseJNode(s string) *jnode {
	dec := json.NewDecoder(strings.NewReader(strings.TrimPrefix(s, "\uFEFF")))
	dec.UseNumber()
	n, _ := readJNode(dec, 0)
	return n
}

func readJNode(dec *json.Decoder, depth int) (*jnode, error) {
	if depth > 1000 {
		return nil, fmt.Errorf("json nested deeper than 1000")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n := &jnode{object: true}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return n, err
			}
			key, _ := k.(string)
			v, err := readJNode(dec, depth+1)
			if v != nil {
				n.members = append(n.members, jmember{key: key, val: v})
			}
			if err != nil {
				return n, err
			}
		}
		_, err := dec.Token()
		return n, err
	case json.Delim('['):
		n := &jnode{array: true}
		for dec.More() {
			v, err := readJNode(dec, depth+1)
			if v != nil {
				n.elems = append(n.elems, v)
			}
			if err != nil {
				return n, err
			}
		}
		_, err := dec.Token()
		return n, err
	}
	return &jnode{scalar: tok}, nil
}

// foldKey is a key as the most lenient reader matches it: lower case,
// Unicode's simple folds of s and k, '_' and '-' dropped.
func foldKey(k string) string {
	k = strings.NewReplacer("\u017f", "s", "\u212a", "k", "_", "", "-", "").Replace(k)
	return strings.ToLower(k)
}

// get is every value of n's members whose key folds to name.
func (n *jnode) get(name string) []*jnode {
	if n == nil || !n.object {
		return nil
	}
	var out []*jnode
	for _, m := range n.members {
		if foldKey(m.key) == name {
			out = append(out, m.val)
		}
	}
	return out
}

// lenientCalls are the calls of one payload.
func lenientCalls(payload string) []call {
	root := parseJNode(payload)
	if root == nil {
		return nil
	}
	roots := []*jnode{root}
	if root.array {
		roots = root.elems // a whole array body read at once
	}
	var out []call
	for _, rt := range roots {
		for _, cands := range rt.get("candidates") {
			for ci, cand := range cands.elems {
				for _, content := range cand.get("content") {
					for _, parts := range content.get("parts") {
						for pi, part := range parts.elems {
							for _, m := range part.members {
								if foldKey(m.key) != "functioncall" || !m.val.object {
									continue
								}
								c := call{Where: fmt.Sprintf("candidates[%d].content.parts[%d].%s", ci, pi, m.key)}
								for _, n := range m.val.get("name") {
									if s, ok := n.scalar.(string); ok {
										c.Name = s
									}
								}
								for _, a := range m.val.get("args") {
									c.Args = a.String()
								}
								out = append(out, c)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// String renders a jnode compactly, for reports.
func (n *jnode) String() string {
	switch {
	case n == nil:
		return ""
	case n.object:
		var b strings.Builder
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(m.key)
			b.Write(k)
			b.WriteByte(':')
			b.WriteString(m.val.String())
		}
		b.WriteByte('}')
		return b.String()
	case n.array:
		var b strings.Builder
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(e.String())
		}
		b.WriteByte(']')
		return b.String()
	}
	v, _ := json.Marshal(n.scalar)
	return string(v)
}
