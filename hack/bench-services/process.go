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
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/netfork/netfork/internal/proc"
)

// startChild runs binary with args, logging to logPath; proc puts it in its own process
// group, so a terminal's Ctrl-C reaches only the benchmark, which then stops it, and
// Pdeathsig kills it if the benchmark dies without doing so.
func startChild(binary string, args []string, logPath string) (*proc.Process, error) {
	return proc.Start(proc.Spec{
		Name:      "apiserver",
		Path:      binary,
		Args:      args,
		LogPath:   logPath,
		LogHeader: fmt.Sprintf("bench-services: %s %q", binary, args),
	})
}

// peakRSSBytes reads the process's resident-set high-water mark (VmHWM), which covers
// its whole life, so a read just before stopping it is the run's peak.
func peakRSSBytes(pid int) (int64, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("reading peak RSS: %w", err)
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) == 3 && fields[0] == "VmHWM:" && fields[2] == "kB" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s: VmHWM %q: %w", path, fields[1], err)
			}
			return kb << 10, nil
		}
	}
	if err := scanner.Err(); err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return 0, fmt.Errorf("%s has no VmHWM line", path)
}

// loadAverage is the machine's 1-minute load average, 0 if /proc/loadavg is unreadable.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(fields[0], 64) // 0 on a malformed file, as documented.
	return v
}
