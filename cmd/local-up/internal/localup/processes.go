package localup

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// stopTimeout bounds a child's graceful shutdown after SIGTERM before it is killed.
const stopTimeout = 20 * time.Second

// child is a kube-apiserver process local-up started.
type child struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	// done is closed once the process has exited and err holds why.
	done chan struct{}
	err  error
}

// childSysProcAttr puts a child in its own process group, so a terminal's Ctrl-C reaches
// only local-up, which then stops the child in order, and has the kernel SIGKILL it if
// local-up dies without doing so.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// startChild runs binary with args, its stdout and stderr going to logPath, and reports its
// exit on exited.
func startChild(name, binary string, args []string, logPath string, exited chan<- *child) (*child, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(logFile, "local-up: %s %q\n", binary, args)
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childSysProcAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("%s: starting %s: %w", name, binary, err)
	}
	c := &child{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		logFile.Close()
		close(c.done)
		exited <- c
	}()
	return c, nil
}

// signalGroup sends sig to the child's whole process group.
func (c *child) signalGroup(sig syscall.Signal) {
	_ = syscall.Kill(-c.cmd.Process.Pid, sig) // The group may already be gone.
}

// stopChildren sends SIGTERM to every child, waits for them until timeout and kills
// whatever is left, so nothing outlives local-up.
func stopChildren(children []*child, timeout time.Duration) {
	for _, c := range children {
		c.signalGroup(syscall.SIGTERM)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for _, c := range children {
		select {
		case <-c.done:
		case <-deadline.C:
			for _, c := range children {
				c.signalGroup(syscall.SIGKILL)
			}
		}
		<-c.done
		c.signalGroup(syscall.SIGKILL) // Reap anything the child itself left in its group.
	}
}

// exitError explains a child that exited on its own, with the line of its log that says why.
func (c *child) exitError() error {
	status := "exited"
	if c.err != nil {
		status = c.err.Error()
	}
	return fmt.Errorf("%s stopped (%s): %s (log: %s)", c.name, status, lastErrorLine(c.logPath), c.logPath)
}

// lastErrorLine reads the end of a log and picks the line that explains a failure.
func lastErrorLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "log unreadable: " + err.Error()
	}
	defer f.Close()
	const tail = 64 << 10
	if info, err := f.Stat(); err == nil && info.Size() > tail {
		_, _ = f.Seek(-tail, io.SeekEnd)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return "log unreadable: " + err.Error()
	}
	return errorLine(string(data))
}
