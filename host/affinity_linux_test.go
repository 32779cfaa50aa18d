//go:build linux

package host_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// twoCPUs returns two CPUs of this process's affinity set, the first for
// a server and the second for its clients, or why there are not two.
func twoCPUs() (server, clients int, err error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 0, 0, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var cpus []int
	for c := range 1024 {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return 0, 0, fmt.Errorf("this process may run on %d CPU(s) (%v), want 2: one for the server, one for its clients", len(cpus), cpus)
	}
	return cpus[0], cpus[1], nil
}

// pinProcess binds every thread of this process to cpu until the test
// ends, when each gets its previous set back. Threads the runtime starts
// later inherit the binding from the thread that starts them.
func pinProcess(tb testing.TB, cpu int) {
	tb.Helper()
	var before, only unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		tb.Fatalf("sched_getaffinity: %v", err)
	}
	only.Set(cpu)
	if err := setThreads(&only); err != nil {
		tb.Fatalf("binding this process to CPU %d: %v", cpu, err)
	}
	tb.Cleanup(func() {
		if err := setThreads(&before); err != nil {
			tb.Errorf("restoring this process's CPUs: %v", err)
		}
	})
}

// setThreads sets the affinity of every thread of this process, again
// until a pass finds no thread it had not set (one started meanwhile by
// a thread not yet set).
func setThreads(set *unix.CPUSet) error {
	done := map[int]bool{}
	for {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			// A thread that ended meanwhile is no error.
			if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("thread %d: %w", tid, err)
			}
			done[tid], fresh = true, true
		}
		if !fresh {
			return nil
		}
	}
}

// startOnCPU starts cmd bound to cpu, with every thread it will have: it
// forks from a thread of this process bound to cpu alone, which the child
// inherits, and which then ends (its goroutine exits locked to it; if
// that was the main thread, which the runtime never ends, it stays idle
// for good, so the binding costs this process nothing).
func startOnCPU(cmd *exec.Cmd, cpu int) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		var only unix.CPUSet
		only.Set(cpu)
		if err := unix.SchedSetaffinity(0, &only); err != nil {
			errc <- fmt.Errorf("binding a thread to CPU %d: %w", cpu, err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}

// clockTick is the unit of the CPU times in /proc/PID/stat: USER_HZ,
// which Linux fixes at 100 per second for what it shows user space.
const clockTick = 10 * time.Millisecond

// processCPU is the CPU time, user and system, that process pid has used
// on all its threads, from /proc/PID/stat (in clock ticks of 10 ms).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: the fields
	// counted from 3 (state) start after its last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no ')' after the command name in %.100q", pid, b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command name, want utime and stime (fields 14 and 15)", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime and stime: %w", pid, err)
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// processWait is how long the threads of process pid have waited for a
// CPU while runnable (the second field of /proc/PID/task/TID/schedstat,
// in nanoseconds): the time other processes took from it on its CPU.
// Threads that ended are not counted; the Go runtime seldom ends one.
func processWait(pid int) (time.Duration, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // ended meanwhile
		}
		if err != nil {
			return 0, err
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			return 0, fmt.Errorf("/proc/%d/task/%s/schedstat: %q, want three numbers", pid, t.Name(), b)
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/task/%s/schedstat: %w", pid, t.Name(), err)
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}
