//go:build !linux

package host_test

import (
	"errors"
	"os/exec"
	"testing"
	"time"
)

var errNoAffinity = errors.New("binding processes to CPUs is done on Linux only (sched_setaffinity, /proc/PID/stat)")

func twoCPUs() (server, clients int, err error)  { return 0, 0, errNoAffinity }
func pinProcess(tb testing.TB, cpu int)          { tb.Skip(errNoAffinity) }
func startOnCPU(cmd *exec.Cmd, cpu int) error    { return errNoAffinity }
func processCPU(pid int) (time.Duration, error)  { return 0, errNoAffinity }
func processWait(pid int) (time.Duration, error) { return 0, errNoAffinity }
