package policytest

import (
	"fmt"
	"io"
	"strings"
)

// Print writes one line per run (PASS or FAIL, file:line, the case and its
// agent sub-case, the stubs that answered), each failure indented under
// its line, then the summary; with coverage, the hooks no case reached.
func Print(w io.Writer, rep *Report, coverage bool) {
	passed, stubbed := 0, 0
	for i := range rep.Results {
		r := &rep.Results[i]
		verdict := "PASS"
		if r.Passed() {
			passed++
		} else {
			verdict = "FAIL"
		}
		name := r.Name
		if r.Label != "" {
			name += " [" + r.Label + "]"
		}
		note := ""
		if len(r.Stubbed) > 0 {
			stubbed++
			note = " (stubbed: " + strings.Join(r.Stubbed, ", ") + ")"
		}
		fmt.Fprintf(w, "%s  %s:%d  %s%s\n", verdict, r.File, r.Line, name, note)
		for _, f := range r.Failures {
			fmt.Fprintf(w, "        %s\n", f)
		}
	}
	if coverage {
		un := rep.Unreached()
		fmt.Fprintf(w, "coverage: %d of %d hook(s) reached\n", len(rep.Hooks)-len(un), len(rep.Hooks))
		for _, h := range un {
			fmt.Fprintf(w, "  not reached: %s (%s)\n", h.ID, h.Event)
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed", passed, len(rep.Results)-passed)
	if stubbed > 0 {
		fmt.Fprintf(w, ", %d answered by stubs", stubbed)
	}
	fmt.Fprintln(w)
}
