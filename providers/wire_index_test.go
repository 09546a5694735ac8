package providers

import (
	"errors"
	"testing"
)

func TestWireIndexIsAPlainIntegerUpTo2To53(t *testing.T) {
	for raw, want := range map[string]int64{"0": 0, "7": 7, "10": 10, "9007199254740992": 1 << 53} {
		if n, err := parseWireIndex([]byte(raw)); err != nil || n != want {
			t.Errorf("%s: %d, %v", raw, n, err)
		}
	}
	for _, raw := range []string{"", "1.0", "1e0", "1E0", "-0", "-1", "01", "00", "+1", "9007199254740993", "99999999999999999", `"1"`, "null", "true", " 1"} {
		if _, err := parseWireIndex([]byte(raw)); !errors.Is(err, ErrNotAnIndex) || !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%q: %v, want ErrNotAnIndex", raw, err)
		}
	}
}

func TestEventDecodeRefusesIndicesNotPlainIntegers(t *testing.T) {
	var m MessagesEvent
	var r ResponsesEvent
	for _, n := range []string{"1.0", "1e0", "9007199254740993", "null", `"1"`} {
		if err := m.Decode([]byte(`{"type":"content_block_stop","index":` + n + `}`)); !errors.Is(err, ErrNotAnIndex) {
			t.Errorf("messages index %s: %v", n, err)
		}
		for _, member := range []string{"sequence_number", "output_index", "content_index"} {
			if err := r.Decode([]byte(`{"type":"response.output_text.delta","delta":"a","` + member + `":` + n + `}`)); !errors.Is(err, ErrNotAnIndex) {
				t.Errorf("responses %s %s: %v", member, n, err)
			}
		}
	}
	if err := m.Decode([]byte(`{"type":"content_block_stop","index":3}`)); err != nil || m.Index != 3 {
		t.Fatalf("index 3: %d, %v", m.Index, err)
	}
}

func TestMessageStartAndSnapshotsCarryNoOutput(t *testing.T) {
	for content, ok := range map[string]bool{
		`[]`: true, `[ ]`: true, ``: true, `null`: true,
		`[{"type":"tool_use","name":"exec","input":{}}]`: false,
		`[{"type":"text","text":""}]`:                    false,
		`{}`:                                             false,
	} {
		msg, resp := `{"id":"m"}`, `{"id":"r"}`
		if content != "" {
			msg, resp = `{"id":"m","content":`+content+`}`, `{"id":"r","output":`+content+`}`
		}
		if err := CheckMessageStart([]byte(msg)); (err == nil) != ok || (err != nil && !errors.Is(err, ErrMessageStartContent)) {
			t.Errorf("%s: %v", msg, err)
		}
		if err := CheckResponsesSnapshot(Field{[]byte(resp)}); (err == nil) != ok || (err != nil && !errors.Is(err, ErrSnapshotOutput)) {
			t.Errorf("snapshot %s: %v", resp, err)
		}
	}
}

func TestEventNameMatchesTheDecodedType(t *testing.T) {
	for _, c := range []struct {
		name, typ string
		want      bool
	}{
		{"", `"x"`, false}, {"ping", `"ping"`, true}, {"ping", `"p\u0069ng"`, true}, {"ping", `"content_block_start"`, false},
		{"ping", `1`, false}, {"ping", ``, false},
	} {
		var typ Field
		if c.typ != "" {
			typ = Field{[]byte(c.typ)}
		}
		if got := EventNameMatches([]byte(c.name), typ); got != c.want {
			t.Errorf("%q %s: %v", c.name, c.typ, got)
		}
	}
	if !EventNameMatches(nil, Field{}) {
		t.Error("an event without an event: line always matches")
	}
}
