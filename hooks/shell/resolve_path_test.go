package shell

import "testing"

func TestCleanPath(t *testing.T) {
	cases := map[string]string{
		"/tmp/../":     "/",
		"/tmp/..":      "/",
		"//":           "/",
		"/.":           "/",
		"/":            "/",
		"/../..":       "/",
		"/etc//passwd": "/etc/passwd",
		"/etc/./x/":    "/etc/x",
		"/usr/../etc":  "/etc",
		"~":            "~",
		"~/":           "~",
		"~/x/../y":     "~/y",
		"~/x/../../y":  "~/x/../../y",
		"~//..":        "~/..",
		"~/..":         "~/..",
		"~/./a":        "~/a",
		"/*":           "/*",
		"/tmp/../*":    "/*",
		"//*":          "/*",
		"/etc/*":       "/etc/*",
		"./build":      "build",
		".":            ".",
		"./":           ".",
		"../x":         "../x",
		"a/../..":      "..",
		"":             "",
	}
	for in, want := range cases {
		if got := CleanPath(in); got != want {
			t.Errorf("CleanPath(%q) = %q, want %q", in, got, want)
		}
	}
}
