package appdb_test

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// TestARollbackOfAServerThatDoesNotAnswerEnds: db_rollback of a
// PostgreSQL transaction whose server stopped answering (its backend
// stopped, the connection open, as a wedged server or pooler leaves it)
// returns, an error, rather than hold the guest's call in the host
// function for good: a host function's wait is not ended by the call's
// deadline, which is checked when it returns. The session then serves
// again, on another connection, once the server answers.
func TestARollbackOfAServerThatDoesNotAnswerEnds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts PostgreSQL")
	}
	url, _, _ := databasetest.StartPostgres(t)
	set := appdb.New(t.TempDir(), map[string]config.Database{"main": {Driver: config.DatabasePostgres, URL: url}})
	t.Cleanup(func() { set.Close() })
	s := appdb.NewSession(set, t.Context(), time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
	t.Cleanup(func() { s.Close() })
	main := []byte("main")
	if e := s.Begin(main); e != 0 {
		t.Fatalf("begin: %d", e)
	}
	if _, e := s.Run(main, []byte("SELECT pg_backend_pid() AS pid"), nil, false); e != 0 {
		res, _ := s.Result()
		t.Fatalf("the transaction's statement: errno %d: %s", e, res)
	}
	res, _ := s.Result()
	_, after, _ := strings.Cut(string(res), `"rows":[[`)
	pid, err := strconv.Atoi(strings.TrimSuffix(after, "]]}"))
	if err != nil {
		t.Fatalf("no backend pid in %s", res)
	}

	// The backend stops answering; its connection stays open.
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	done := make(chan abi.Errno, 1)
	t.Cleanup(func() {
		// Before the session closes: a rollback still waiting returns
		// once the backend answers.
		syscall.Kill(pid, syscall.SIGCONT)
		<-done
	})
	go func() { done <- s.End(main, false) }()
	select {
	case e := <-done:
		done <- e // for the cleanup
		if e == 0 {
			t.Errorf("db_rollback of a server that does not answer: errno 0, want an error")
		}
	case <-time.After(time.Minute):
		t.Fatal("db_rollback of a server that does not answer has not returned after a minute")
	}

	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if _, e := s.Run(main, []byte("SELECT 1"), nil, false); e != 0 {
		res, _ := s.Result()
		t.Errorf("the next statement: errno %d: %s", e, res)
	}
}
