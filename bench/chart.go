package bench

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
)

// WriteSVG draws the added latency of every non-baseline target as a bar
// chart: one group per phase (scenario and load), two bars per target (its
// added p50 and p99 over the baseline) on the phase's headline measure:
// time to first byte for streams, total latency for plain calls.
func (r *Report) WriteSVG(w io.Writer) error {
	type bar struct {
		target int
		p99    bool
		v      float64
		n      int
	}
	type group struct {
		label1, label2 string
		bars           []bar
	}
	var targets []string
	if len(r.Settings.Targets) > 1 {
		targets = r.Settings.Targets[1:]
	}
	var groups []group
	lo, hi := 0.0, 1.0
	for i := range r.Phases {
		p := &r.Phases[i]
		g := group{label1: p.Scenario, label2: p.Load.String()}
		for ti := range p.Targets[1:] {
			name, a := p.headline(&p.Targets[ti+1])
			g.label2 = p.Load.String() + " · " + name
			if a == nil {
				continue
			}
			g.bars = append(g.bars, bar{ti, false, a.P50, a.Pairs}, bar{ti, true, a.P99, a.Pairs})
			lo, hi = math.Min(lo, a.P50), math.Max(hi, a.P50)
			if a.Pairs >= minP99Samples {
				lo, hi = math.Min(lo, a.P99), math.Max(hi, a.P99)
			}
		}
		groups = append(groups, g)
	}
	_, step := niceScale(hi - lo)
	top := step * math.Ceil(hi/step)
	bottom := -step * math.Ceil(-lo/step)

	const (
		barW, barGap, groupGap  = 16.0, 2.0, 36.0
		left, right, head, foot = 78.0, 20.0, 70.0, 70.0
		plotH                   = 300.0
	)
	groupW := max(float64(2*max(len(targets), 1))*(barW+barGap)+groupGap, 150)
	width := max(left+right+groupW*float64(max(len(groups), 1)), 640)
	height := head + plotH + foot
	y := func(v float64) float64 { return head + plotH*(top-v)/(top-bottom) }
	colors := []string{"#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2"}

	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(bw, `<text x="%.0f" y="20" font-size="14" font-weight="bold">Latency added over %s (µs): p50 solid, p99 light</text>`+"\n",
		left, html.EscapeString(r.Settings.Targets[0]))
	fmt.Fprintf(bw, `<text x="%.0f" y="36" fill="#555">%s · %s · %d CPUs shared by generator, mock and proxies</text>`+"\n",
		left, r.Started.Format("2006-01-02 15:04"), html.EscapeString(r.Machine.Go), r.Machine.CPUs)
	for i, t := range targets {
		x := left + float64(i)*140
		fmt.Fprintf(bw, `<rect x="%.0f" y="46" width="12" height="12" fill="%s"/><text x="%.0f" y="56">%s</text>`+"\n",
			x, colors[i%len(colors)], x+16, html.EscapeString(t))
	}
	for v := bottom; v <= top+step/2; v += step {
		fmt.Fprintf(bw, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, width-right, y(v), y(v))
		fmt.Fprintf(bw, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y(v)+4, trimFloat(v))
	}
	fmt.Fprintf(bw, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#333"/>`+"\n", left, width-right, y(0), y(0))
	for gi, g := range groups {
		x0 := left + float64(gi)*groupW + groupGap/2
		barsW := float64(len(g.bars))*(barW+barGap) - barGap
		x0 += (groupW - groupGap - barsW) / 2 // centre the bars in the group
		for bi, b := range g.bars {
			x := x0 + float64(bi)*(barW+barGap)
			if b.p99 && b.n < minP99Samples {
				fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="9" fill="#888">n=%d</text>`+"\n", x+barW/2, y(0)-3, b.n)
				continue
			}
			y0, y1 := y(math.Max(b.v, 0)), y(math.Min(b.v, 0))
			opacity := "1"
			if b.p99 {
				opacity = "0.45"
			}
			fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.0f" height="%.1f" fill="%s" fill-opacity="%s"><title>%s %s p%s: %s</title></rect>`+"\n",
				x, y0, barW, math.Max(y1-y0, 0.5), colors[b.target%len(colors)], opacity,
				html.EscapeString(targets[b.target]), html.EscapeString(g.label1), map[bool]string{false: "50", true: "99"}[b.p99], fmtUS(b.v))
			ly := y0 - 3
			if b.v < 0 {
				ly = y1 + 10
			}
			fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="9">%.0f</text>`+"\n", x+barW/2, ly, b.v)
		}
		cx := left + float64(gi)*groupW + groupW/2
		fmt.Fprintf(bw, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", cx, head+plotH+18, html.EscapeString(g.label1))
		fmt.Fprintf(bw, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555" font-size="9">%s</text>`+"\n", cx, head+plotH+32, html.EscapeString(g.label2))
	}
	fmt.Fprintf(bw, `<text x="%.0f" y="%.0f" fill="#555" font-size="10">p99 is not drawn where fewer than %d requests were paired (shown as n=…): it would be one outlier.</text>`+"\n",
		left, height-12, minP99Samples)
	fmt.Fprintln(bw, `</svg>`)
	return bw.Flush()
}

// minP99Samples is the fewest paired requests for which the chart draws a
// p99 difference; below it the 99th percentile is the maximum or next to it.
const minP99Samples = 100

// niceScale returns an axis top of 1, 2 or 5 times a power of ten at or
// above hi, and a tick step that gives five ticks.
func niceScale(hi float64) (top, step float64) {
	if hi <= 0 {
		hi = 1
	}
	pow := math.Pow(10, math.Floor(math.Log10(hi)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= hi {
			return m * pow, m * pow / 5
		}
	}
	return 10 * pow, 2 * pow
}

func trimFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", v)
}
