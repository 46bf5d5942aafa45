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

package proc

import (
	"io"
	"os"
	"strconv"
	"strings"
)

// logTail is how much of a log Explain reads: the reason for an exit is near its end.
const logTail = 64 << 10

// Explain reads the end of a log and returns the line that explains a failure.
func Explain(logPath string) string {
	f, err := os.Open(logPath)
	if err != nil {
		return "log unreadable: " + err.Error()
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > logTail {
		_, _ = f.Seek(-logTail, io.SeekEnd) // On failure it reads from the start.
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return "log unreadable: " + err.Error()
	}
	return ErrorLine(string(data))
}

// ErrorLine picks the line that explains a failure in a command's output: the
// last "Error:" line cobra prints, else the last klog error or fatal line
// (kube-apiserver reports bad feature gates and failed starts that way), else
// the last line.
func ErrorLine(output string) string {
	lines := strings.Split(strings.TrimSpace(output), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "Error:") {
			return truncate(strings.TrimSpace(lines[i]))
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if msg, ok := klogError(lines[i]); ok {
			return truncate(msg)
		}
	}
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return truncate(last)
	}
	return "no output"
}

// klogError turns a klog error or fatal line, e.g.
// `E1121 22:16:37.114389 8738 run.go:72] "command failed" err="unrecognized feature gate: X"`,
// into its message and error, e.g. "unrecognized feature gate: X".
func klogError(line string) (string, bool) {
	if len(line) < 5 || (line[0] != 'E' && line[0] != 'F') || strings.Trim(line[1:5], "0123456789") != "" {
		return "", false
	}
	_, text, found := strings.Cut(line, "] ")
	if !found {
		return line, true
	}
	msg, rest := unquotePrefix(text)
	_, errValue, hasErr := strings.Cut(rest, "err=")
	if !hasErr {
		return strings.TrimSpace(text), true
	}
	errText, _ := unquotePrefix(errValue)
	if msg == "" || msg == "command failed" {
		return errText, true
	}
	return msg + ": " + errText, true
}

// unquotePrefix splits a leading Go-quoted string off s, or returns s whole when
// it does not start with one.
func unquotePrefix(s string) (string, string) {
	quoted, err := strconv.QuotedPrefix(s)
	if err != nil {
		return strings.TrimSpace(s), ""
	}
	unquoted, _ := strconv.Unquote(quoted) // QuotedPrefix guarantees a valid literal.
	return unquoted, s[len(quoted):]
}

// truncate keeps an error line readable on one terminal line or two.
func truncate(line string) string {
	const limit = 400
	if len(line) > limit {
		return line[:limit] + "..."
	}
	return line
}
