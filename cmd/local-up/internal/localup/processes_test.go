package localup

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestChildExitExplainsItself(t *testing.T) {
	log := filepath.Join(t.TempDir(), "apiserver-0.log")
	exited := make(chan *child, 1)
	c, err := startChild("apiserver-0", "/bin/sh", []string{"-c", "echo I1121 starting; echo 'Error: boom' >&2; exit 3"}, log, exited)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-exited:
		if got != c {
			t.Fatalf("exited reported another child")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("child did not exit")
	}
	msg := c.exitError().Error()
	want := "apiserver-0 stopped (exit status 3): Error: boom (log: " + log + ")"
	if msg != want {
		t.Fatalf("exitError = %q, want %q", msg, want)
	}
}

func TestStopChildrenLeavesNothingRunning(t *testing.T) {
	dir := t.TempDir()
	exited := make(chan *child, 2)
	var children []*child
	// The second child ignores SIGTERM and runs a grandchild in its group.
	for i, script := range []string{"exec sleep 100", "trap '' TERM; sleep 100 & wait"} {
		c, err := startChild("child", "/bin/sh", []string{"-c", script}, filepath.Join(dir, "log"+portString(i)), exited)
		if err != nil {
			t.Fatal(err)
		}
		children = append(children, c)
	}
	time.Sleep(200 * time.Millisecond) // Let the shells install their traps.
	start := time.Now()
	stopChildren(children, time.Second)
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("stopChildren took %s", elapsed)
	}
	for _, c := range children {
		// A killed grandchild lingers until init reaps it, so give the group a moment.
		if !groupGone(c.cmd.Process.Pid, 5*time.Second) {
			t.Errorf("process group %d still exists after stopChildren", c.cmd.Process.Pid)
		}
		if !strings.Contains(c.err.Error(), "signal") {
			t.Errorf("child ended with %v, want a signal", c.err)
		}
	}
}

// groupGone waits until no process is left in process group pgid.
func groupGone(pgid int, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) == syscall.ESRCH {
			return true
		}
	}
	return false
}
