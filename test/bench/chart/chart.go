/*
Copyright 2026 The netfork Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/netfork/netfork/test/bench/chartfile"
)

// palette colors contenders in their order (Okabe-Ito, readable by color-blind readers).
var palette = []color.RGBA{
	{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255},
	{213, 94, 0, 255}, {86, 180, 233, 255}, {204, 121, 167, 255}, {0, 0, 0, 255},
}

const panelWidth, panelHeight = 5 * vg.Inch, 4.5 * vg.Inch

// run reads the chart data at in and writes a PNG per chart: out for the first, out with
// "-k<K>" before ".png" for the others. It returns the paths written.
func run(in, out string) ([]string, error) {
	raw, err := os.ReadFile(in)
	if err != nil {
		return nil, err
	}
	var f chartfile.File
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}
	if len(f.Charts) == 0 {
		return nil, fmt.Errorf("%s: no charts (did the benchmark measure any run?)", in)
	}
	if filepath.Ext(out) != ".png" {
		return nil, fmt.Errorf("--out %s: must end in .png", out)
	}
	var written []string
	for i, c := range f.Charts {
		p := out
		if i > 0 {
			p = strings.TrimSuffix(out, ".png") + fmt.Sprintf("-k%d.png", c.CIDRs)
		}
		if err := writeChart(p, c); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

// writeChart draws one chart's three panels side by side and writes it as a PNG, through
// a temporary file so a reader never sees half a chart.
func writeChart(path string, c chartfile.Chart) error {
	panels := make([]*plot.Plot, 3)
	lo, hi := decadeBounds(c)
	for i, name := range []string{"p50", "p90", "p99"} {
		p, err := panel(c, name, i)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		// One y range for the three panels so they compare.
		p.Y.Min, p.Y.Max = lo, hi
		panels[i] = p
	}
	img := vgimg.New(3*panelWidth, panelHeight)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 3, PadX: vg.Millimeter, PadY: vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{panels}, tiles, dc)
	for i, p := range panels {
		p.Draw(canvases[0][i])
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".bench-chart-*.png")
	if err != nil {
		return err
	}
	_, werr := vgimg.PngCanvas{Canvas: img}.WriteTo(tmp)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// decadeBounds are the powers of ten around every value of the chart, plus one decade on
// top for the legend.
func decadeBounds(c chartfile.Chart) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, values := range [][]*float64{s.P50, s.P90, s.P99} {
			for _, v := range values {
				if v != nil && *v > 0 {
					lo, hi = math.Min(lo, *v), math.Max(hi, *v)
				}
			}
		}
	}
	if math.IsInf(lo, 1) {
		return 1, 10
	}
	return math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi))+1)
}

// panel plots one percentile (index pi of p50, p90, p99): a line per contender, log-log.
func panel(c chartfile.Chart, name string, pi int) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("create %s, %d extra ServiceCIDRs", name, c.CIDRs)
	p.X.Label.Text = "Services (N)"
	p.Y.Label.Text = "ms (median over rounds)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	for i, s := range c.Series {
		values := [][]*float64{s.P50, s.P90, s.P99}[pi]
		if len(values) != len(c.Ns) {
			return nil, fmt.Errorf("contender %s has %d %s values for %d Ns", s.Contender, len(values), name, len(c.Ns))
		}
		var xys plotter.XYs
		for j, v := range values {
			// Log scales cannot show zero; a run with no value has no point.
			if v == nil || *v <= 0 || math.IsNaN(*v) {
				continue
			}
			xys = append(xys, plotter.XY{X: float64(c.Ns[j]), Y: *v})
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color = palette[i%len(palette)], palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		label := s.Contender
		if s.Failed {
			label += " (FAILED in some run)"
			pts.Shape = draw.CrossGlyph{}
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l, pts)
		p.Legend.Add(label, l, pts)
	}
	return p, nil
}
