package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The chart is drawn by hand on an image.RGBA: a plotting library would pull a dozen
// modules (fonts, PDF, SVG, LaTeX) into the apiserver's module graph for one PNG, while
// x/image's fixed 7x13 font is one module the graph already agrees with.
const (
	panelWidth, panelHeight = 400, 340
	marginLeft, marginRight = 60, 15
	marginTop, marginBottom = 30, 40
	titleHeight, legendRow  = 24, 16
)

var (
	white = color.RGBA{255, 255, 255, 255}
	black = color.RGBA{0, 0, 0, 255}
	grey  = color.RGBA{220, 220, 220, 255}
	// palette colors contenders in their order (Okabe-Ito, readable by color-blind readers).
	palette = []color.RGBA{
		{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255},
		{213, 94, 0, 255}, {86, 180, 233, 255}, {204, 121, 167, 255}, {0, 0, 0, 255},
	}
)

// series is one contender's line in one panel: latency in ms at each N, NaN where it has no run.
type series struct {
	name   string
	values []float64
	failed []bool
}

// panel is one percentile's chart.
type panel struct {
	title  string
	series []series
}

// writeCharts writes one PNG per number of extra ServiceCIDRs: path for the first, and
// path with "-k<K>" before ".png" for the others; it returns the paths written.
func writeCharts(path string, results []result, contenders []string) ([]string, error) {
	var ks []int
	for _, c := range cells(results) {
		if !slices.Contains(ks, c.cidrs) {
			ks = append(ks, c.cidrs)
		}
	}
	slices.Sort(ks)
	var written []string
	for i, k := range ks {
		p := path
		if i > 0 {
			p = strings.TrimSuffix(path, ".png") + fmt.Sprintf("-k%d.png", k)
		}
		err := writeFileAtomic(p, func(w io.Writer) error { return drawChart(w, results, contenders, k) })
		if err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

// drawChart draws p50, p90 and p99 create latency against N, one line per contender,
// medians across rounds, for the runs with k extra ServiceCIDRs.
func drawChart(w io.Writer, results []result, contenders []string, k int) error {
	var ns []int
	for _, c := range cells(results) {
		if c.cidrs == k && !slices.Contains(ns, c.n) {
			ns = append(ns, c.n)
		}
	}
	slices.Sort(ns)
	panels := []panel{{title: "p50"}, {title: "p90"}, {title: "p99"}}
	for _, name := range contenders {
		var s [3]series
		for i := range s {
			s[i] = series{name: name}
		}
		for _, n := range ns {
			a, ok := aggregateOf(results, name, cell{n, k})
			values := [3]float64{a.p50, a.p90, a.p99}
			for i := range s {
				if !ok {
					values[i] = math.NaN()
				}
				s[i].values = append(s[i].values, values[i])
				s[i].failed = append(s[i].failed, ok && !a.consistent)
			}
		}
		for i := range panels {
			panels[i].series = append(panels[i].series, s[i])
		}
	}

	legendHeight := legendRow * ((len(contenders) + 2) / 3)
	img := image.NewRGBA(image.Rect(0, 0, 3*panelWidth, titleHeight+legendHeight+panelHeight))
	draw.Draw(img, img.Bounds(), image.NewUniform(white), image.Point{}, draw.Src)
	label(img, 10, 16, black, fmt.Sprintf("Service create latency (ms, log scale) vs N; %d extra ServiceCIDRs; median over rounds; x marks a failed (inconsistent) run", k))
	for i, name := range contenders {
		x, y := 10+(i%3)*panelWidth, titleHeight+legendRow*(i/3)+10
		fillRect(img, x, y-5, x+20, y-3, palette[i%len(palette)])
		if slices.Contains(panels[0].series[i].failed, true) {
			name += " (FAILED in some run)"
		}
		label(img, x+26, y, black, name)
	}
	lo, hi := decadeBounds(panels)
	for i, p := range panels {
		origin := image.Point{X: i * panelWidth, Y: titleHeight + legendHeight}
		drawPanel(img, origin, p, ns, lo, hi)
	}
	return png.Encode(w, img)
}

// decadeBounds are the powers of ten around every value, shared by the panels so they compare.
func decadeBounds(panels []panel) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range panels {
		for _, s := range p.series {
			for _, v := range s.values {
				if v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 1
	}
	lo, hi = math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// drawPanel draws one percentile's axes, grid and lines at origin; x positions are the
// Ns in order, evenly spaced, y is log10 of the latency between decades lo and hi.
func drawPanel(img *image.RGBA, origin image.Point, p panel, ns []int, lo, hi float64) {
	left, top := origin.X+marginLeft, origin.Y+marginTop
	right, bottom := origin.X+panelWidth-marginRight, origin.Y+panelHeight-marginBottom
	xAt := func(i int) int {
		if len(ns) == 1 {
			return (left + right) / 2
		}
		return left + 20 + i*(right-left-40)/(len(ns)-1)
	}
	yAt := func(v float64) int {
		return bottom - int(float64(bottom-top)*(math.Log10(v)-lo)/(hi-lo))
	}
	for d := lo; d <= hi; d++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, d)
			if math.Log10(v) > hi {
				break
			}
			y := yAt(v)
			fillRect(img, left, y, right, y+1, grey)
			label(img, origin.X+4, y+4, black, trimFloat(v))
		}
	}
	fillRect(img, left, top, left+1, bottom, black)
	fillRect(img, left, bottom, right, bottom+1, black)
	for i, n := range ns {
		x := xAt(i)
		fillRect(img, x, bottom, x+1, bottom+5, black)
		text := fmt.Sprintf("%d", n)
		label(img, x-len(text)*7/2, bottom+18, black, text)
	}
	label(img, (left+right)/2-10, bottom+34, black, "N")
	label(img, left+8, top-10, black, p.title+" create latency, ms")
	for si, s := range p.series {
		c := palette[si%len(palette)]
		prev := image.Point{X: -1}
		for i, v := range s.values {
			if math.IsNaN(v) || v <= 0 {
				prev = image.Point{X: -1}
				continue
			}
			pt := image.Point{X: xAt(i), Y: yAt(v)}
			if prev.X >= 0 {
				line(img, prev, pt, c)
			}
			if s.failed[i] {
				line(img, pt.Add(image.Pt(-5, -5)), pt.Add(image.Pt(5, 5)), c)
				line(img, pt.Add(image.Pt(-5, 5)), pt.Add(image.Pt(5, -5)), c)
			} else {
				fillRect(img, pt.X-3, pt.Y-3, pt.X+4, pt.Y+4, c)
			}
			prev = pt
		}
	}
}

// line draws a two-pixel-wide segment from a to b.
func line(img *image.RGBA, a, b image.Point, c color.RGBA) {
	steps := max(abs(b.X-a.X), abs(b.Y-a.Y), 1)
	for i := 0; i <= steps; i++ {
		x := a.X + (b.X-a.X)*i/steps
		y := a.Y + (b.Y-a.Y)*i/steps
		fillRect(img, x, y, x+2, y+2, c)
	}
}

// fillRect fills the rectangle [x0,x1)x[y0,y1).
func fillRect(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	draw.Draw(img, image.Rect(x0, y0, x1, y1), image.NewUniform(c), image.Point{}, draw.Src)
}

// label writes text with its baseline at (x, y).
func label(img *image.RGBA, x, y int, c color.RGBA, text string) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(text)
}

// trimFloat prints a tick value without needless decimals: 0.5, 2, 1000.
func trimFloat(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
