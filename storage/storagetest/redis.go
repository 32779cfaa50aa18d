package storagetest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/syncbuf"
)

// StartRedis starts a redis-server on a free loopback port, without
// persistence, waits until it answers PING and returns its URL (for
// example "redis://127.0.0.1:41234/0"). stop kills the server, as a crash
// would, to test outages; restart starts it again, empty, on the same port.
// The server is killed when t's test ends.
//
//	url, stop, restart := storagetest.StartRedis(t)
//
// # Notes
//
//   - Without redis-server on PATH the test is skipped, unless the
//     environment variable CI is set: then it fails, since CI installs it
//     (Debian package redis-server).
//   - stop and restart may be called any number of times, in any order, from
//     the goroutine running t's test; restart fails t when the server does
//     not come back within 5 s.
//   - The server runs with --save "" --appendonly no, in a temporary
//     directory; its log is reported when it does not start.
func StartRedis(t testing.TB) (url string, stop func(), restart func()) {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis-server is required (CI installs the Debian package redis-server): %v", err)
		}
		t.Skipf("redis-server not installed: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port for redis-server: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := &redisServer{path: path, dir: t.TempDir(), addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	if err := srv.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)
	restart = func() {
		t.Helper()
		srv.stop()
		if err := srv.start(); err != nil {
			t.Fatal(err)
		}
	}
	return "redis://" + srv.addr + "/0", srv.stop, restart
}

// redisServer is one redis-server process, restartable on its address.
type redisServer struct {
	path, dir, addr string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	log  *syncbuf.Buffer
}

// start runs the server and waits until it answers PING.
func (s *redisServer) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, port, _ := net.SplitHostPort(s.addr)
	s.log = &syncbuf.Buffer{}
	s.cmd = exec.Command(s.path,
		"--save", "", "--appendonly", "no",
		"--port", port, "--bind", "127.0.0.1",
		"--dir", s.dir)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", s.path, err)
	}
	done := make(chan struct{})
	s.done = done
	go func(cmd *exec.Cmd) {
		cmd.Wait()
		close(done)
	}(s.cmd)
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := ping(s.addr)
		if err == nil {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("redis-server on %s exited before answering (%v); its log:\n%s", s.addr, s.cmd.ProcessState, s.log)
		default:
		}
		if time.Now().After(deadline) {
			s.cmd.Process.Kill()
			<-done
			return fmt.Errorf("redis-server on %s did not answer PING within 5 s: %v; its log:\n%s", s.addr, err, s.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop kills the server, if it runs, and waits until it has exited.
func (s *redisServer) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// ping sends PING to addr and checks the answer is +PONG.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q, want +PONG", line)
	}
	return nil
}
