package proxy

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// The console's pages hold no inline script or style and name nothing
// outside hookgate: the CSP would refuse it, and the pages must work
// under it.
func TestConsolePagesHaveNoInlineScriptAndNoExternalResource(t *testing.T) {
	inlineScript := regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`)
	scriptWithoutSrc := regexp.MustCompile(`<script(?:(?:\s+[a-z-]+(?:="[^"]*")?)*)>`)
	handler := regexp.MustCompile(`\son[a-z]+\s*=`)
	external := regexp.MustCompile(`(?:src|href)\s*=\s*"(?:https?:)?//`)
	pages := 0
	err := fs.WalkDir(consoleFiles, "console", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := consoleFiles.ReadFile(path)
		if err != nil {
			return err
		}
		s := string(b)
		if strings.HasSuffix(path, ".html") {
			pages++
			for _, m := range scriptWithoutSrc.FindAllString(s, -1) {
				if !strings.Contains(m, " src=") {
					t.Errorf("%s: a script without src: %s", path, m)
				}
			}
			if inlineScript.MatchString(s) {
				t.Errorf("%s: inline script", path)
			}
			if handler.MatchString(s) {
				t.Errorf("%s: an inline event handler", path)
			}
			if strings.Contains(s, "<style") || strings.Contains(s, " style=") {
				t.Errorf("%s: inline style", path)
			}
		}
		if external.MatchString(s) || strings.Contains(s, "@import") {
			t.Errorf("%s: names an external resource", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 2 {
		t.Fatalf("%d pages embedded, want the console and its login", pages)
	}
}
