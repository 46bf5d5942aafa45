package clustercheck

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// PrintTable writes the rows as an aligned table headed by title.
func PrintTable(w io.Writer, title string, rows []Row) {
	if title != "" {
		fmt.Fprintln(w, title)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tRESULT\tDETAIL")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Check, r.Status, r.Detail)
	}
	_ = tw.Flush() // A failed write to a terminal has nowhere better to go.
}
