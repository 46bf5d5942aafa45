package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// stopTimeout bounds an apiserver's graceful shutdown after SIGTERM.
const stopTimeout = 30 * time.Second

// apiserver is a kube-apiserver process running in a host's namespace.
type apiserver struct {
	host    host
	logPath string
	cmd     *exec.Cmd
	// done is closed once the process has exited; err then says how.
	done chan struct{}
	err  error
}

// startAPIServer runs binary in h's namespace through `ip netns exec`, which
// execs it, so the PID is the apiserver's own. It gets its own process group,
// so a terminal's Ctrl-C reaches only this command, which then stops it, and
// SIGKILL if this command dies first.
func startAPIServer(ipPath, binary string, h host, args []string, logPath string, exited chan<- *apiserver) (*apiserver, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("apiserver in %s: %w", h.Netns, err)
	}
	argv := append([]string{"netns", "exec", h.Netns, binary}, args...)
	fmt.Fprintf(logFile, "local-up-netns: %s %q\n", ipPath, argv)
	cmd := exec.Command(ipPath, argv...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("apiserver in %s: starting %s: %w", h.Netns, ipPath, err)
	}
	a := &apiserver{host: h, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		a.err = cmd.Wait()
		logFile.Close()
		close(a.done)
		exited <- a
	}()
	return a, nil
}

// stopAPIServers sends SIGTERM to every apiserver's PID, waits for each until
// stopTimeout and sends SIGKILL to those still running.
func stopAPIServers(servers []*apiserver) {
	for _, a := range servers {
		_ = a.cmd.Process.Signal(syscall.SIGTERM) // It may have exited already.
	}
	deadline := time.NewTimer(stopTimeout)
	defer deadline.Stop()
	expired := false
	for _, a := range servers {
		if !expired {
			select {
			case <-a.done:
				continue
			case <-deadline.C:
				expired = true
			}
		}
		_ = a.cmd.Process.Kill() // It may have exited meanwhile.
		<-a.done
	}
}

// exitError explains an apiserver that exited on its own, with the last line
// of its log, which says why.
func (a *apiserver) exitError() error {
	return fmt.Errorf("apiserver in %s (pid %d) exited (%v): %s (log: %s)", a.host.Netns, a.cmd.Process.Pid, a.err, lastLine(a.logPath), a.logPath)
}

// lastLine returns the last non-empty line among the final 16 KiB of a log.
func lastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "log unreadable: " + err.Error()
	}
	defer f.Close()
	const tail = 16 << 10
	if info, err := f.Stat(); err == nil && info.Size() > tail {
		_, _ = f.Seek(-tail, io.SeekEnd) // On failure it reads from the start.
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return "log unreadable: " + err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return lines[len(lines)-1]
}
