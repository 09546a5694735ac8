package channels

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	long := strings.Repeat("a", 5000)
	wide := strings.Repeat("界", 400)
	tests := []struct {
		name, in string
		n        int
		same     bool
	}{
		{"short stays", "pay", 10, true},
		{"exact stays", "abcde", 5, true},
		{"long is cut", long, 100, false},
		{"multibyte is cut on a rune", wide, 50, false},
		{"tiny bound", long, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := clip(tt.in, tt.n)
			if tt.same {
				if got != tt.in {
					t.Fatalf("clip changed %q to %q", tt.in, got)
				}
				return
			}
			if !utf8.ValidString(got) {
				t.Fatalf("clip produced invalid UTF-8: %q", got)
			}
			if tt.n >= 20 && utf8.RuneCountInString(got) > tt.n {
				t.Fatalf("clip to %d gave %d characters", tt.n, utf8.RuneCountInString(got))
			}
			if !strings.Contains(got, "(cut ") {
				t.Fatalf("no cut marker in %q", got)
			}
		})
	}
}

func TestCheckApprovalID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"6f1c2a9e-3b7d-4c1e-9a2f-0b8e5d4c3a21", true},
		{"appr_01:x.y", true},
		{"", false},
		{strings.Repeat("a", 129), false},
		{"has space", false},
		{"quote\"", false},
		{"new\nline", false},
		{"ünïcode", false},
	}
	for _, tt := range tests {
		if err := checkApprovalID(tt.id); (err == nil) != tt.ok {
			t.Errorf("checkApprovalID(%q) = %v, want ok=%v", tt.id, err, tt.ok)
		}
	}
}

func TestNormalizeCard(t *testing.T) {
	fields := make([]Field, maxFields+5)
	for i := range fields {
		fields[i] = Field{Label: "L", Value: strings.Repeat("v", maxValueChars+10)}
	}
	c, err := normalizeCard(Card{ApprovalID: "a1", Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != defaultTitle {
		t.Errorf("title = %q, want the default", c.Title)
	}
	if len(c.Fields) != maxFields {
		t.Errorf("%d fields kept, want %d", len(c.Fields), maxFields)
	}
	total := 0
	for _, f := range c.Fields {
		n := utf8.RuneCountInString(f.Value)
		if n > maxValueChars {
			t.Errorf("value has %d characters, want at most %d", n, maxValueChars)
		}
		total += n
	}
	if limit := maxCardChars + maxFields*minValueChars; total > limit {
		t.Errorf("card values hold %d characters, want at most %d", total, limit)
	}
	if _, err := normalizeCard(Card{ApprovalID: "bad id"}); err == nil {
		t.Error("a card with a bad approval id was accepted")
	}
}

func TestSlackEscape(t *testing.T) {
	if got := slackEscape("<!channel> & <https://x|y>"); got != "&lt;!channel&gt; &amp; &lt;https://x|y&gt;" {
		t.Errorf("slackEscape = %q", got)
	}
}
