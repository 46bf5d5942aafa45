package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// child is a kube-apiserver process the benchmark started.
type child struct {
	cmd     *exec.Cmd
	logPath string
	// done is closed once the process has exited; err then says how.
	done chan struct{}
	err  error
}

// startChild runs binary with args, logging to logPath, in its own process group so a
// terminal's Ctrl-C reaches only the benchmark, which then stops it; Pdeathsig kills it
// if the benchmark dies without doing so.
func startChild(binary string, args []string, logPath string) (*child, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating apiserver log: %w", err)
	}
	fmt.Fprintf(logFile, "bench-services: %s %q\n", binary, args)
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", binary, err)
	}
	c := &child{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		logFile.Close()
		close(c.done)
	}()
	return c, nil
}

// pid is the apiserver's process ID.
func (c *child) pid() int {
	return c.cmd.Process.Pid
}

// stop sends SIGTERM to the child's PID and SIGKILL after timeout, and waits until it is gone.
func (c *child) stop(timeout time.Duration) {
	_ = c.cmd.Process.Signal(syscall.SIGTERM) // It may have exited already.
	select {
	case <-c.done:
		return
	case <-time.After(timeout):
	}
	_ = c.cmd.Process.Kill()
	<-c.done
}

// exitError explains a child that exited on its own.
func (c *child) exitError() error {
	return fmt.Errorf("apiserver pid %d exited: %v (log: %s)", c.pid(), c.err, c.logPath)
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
