package localup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// versionTimeout bounds the `kube-apiserver ... --version` check; parsing flags and
// printing the version takes well under a second.
const versionTimeout = 15 * time.Second

// checkFree fails, naming addr and what needs it, when something already listens there.
func checkFree(addr, who, remedy string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("address %s (%s) is already in use: %s", addr, who, remedy)
		}
		return fmt.Errorf("cannot listen on %s (%s): %w", addr, who, err)
	}
	return l.Close()
}

// checkFlags runs the apiserver binary with args plus --version: kube-apiserver parses
// every flag, feature gates included, before it prints its version, so a bad flag fails
// here, before local-up touches anything. It returns the version line.
func checkFlags(ctx context.Context, binary string, args []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append(append([]string(nil), args...), "--version")...)
	cmd.SysProcAttr = childSysProcAttr()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("%s --version did not finish within %s", binary, versionTimeout)
	}
	if err != nil {
		return "", fmt.Errorf("kube-apiserver rejects its flags: %s", errorLine(out.String()))
	}
	return firstLine(out.String()), nil
}

// errorLine picks the line that explains a failure in a command's output: the last
// "Error:" line cobra prints, else the last klog error (kube-apiserver reports bad feature
// gates and failed starts that way), else the last line.
func errorLine(output string) string {
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

// unquotePrefix splits a leading Go-quoted string off s, or returns s whole when it does
// not start with one.
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

// firstLine is the first line of output, trimmed.
func firstLine(output string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(output), "\n")
	return line
}
