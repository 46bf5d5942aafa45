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
