package guestanswer

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/guestclock"
	"github.com/wasmendpoints/endpoints/host/internal/guestfail"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// call is the call an answer is made for: it must stop when told.
type call struct{ expired bool }

func (c *call) Expired() bool { return c.expired }

// tee keeps what streamed.
type tee struct{ b []byte }

func (t *tee) Tee(data []byte) { t.b = append(t.b, data...) }

// failing is a writer whose writes fail, as a client that left.
type failing struct{ *httptest.ResponseRecorder }

func (failing) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func newAnswer(maxBuffer int64, c *call) (*Answer, *guestclock.Clock) {
	clock := &guestclock.Clock{}
	clock.Start(time.Now(), time.Minute, 0)
	a := &Answer{}
	a.Reset(maxBuffer, clock, c)
	return a, clock
}

func TestWrite(t *testing.T) {
	media := map[int]string{http.StatusOK: "text/event-stream"}
	for _, tc := range []struct {
		name       string
		endpoint   bool // else a plain route
		head       bool
		media      map[int]string
		negotiated string
		status     int
		writes     []string
		// What the client got, what stayed buffered, what the tee kept.
		sent       bool
		wantStatus int
		wantCT     string
		wantOut    string
		wantBuf    string
		wantTee    string
	}{
		{name: "an endpoint's answer is buffered", endpoint: true, status: 201, writes: []string{"a", "b"}, wantBuf: "ab"},
		{name: "a status without media is buffered", endpoint: true, media: media, status: 404, writes: []string{"x"}, wantBuf: "x"},
		{name: "a media status streams with its type", endpoint: true, media: media, status: 200, writes: []string{"e1", "e2"},
			sent: true, wantStatus: 200, wantCT: "text/event-stream", wantOut: "e1e2", wantTee: "e1e2"},
		{name: "a negotiated media type wins", endpoint: true, media: media, negotiated: "application/x-ndjson", status: 200, writes: []string{"{}"},
			sent: true, wantStatus: 200, wantCT: "application/x-ndjson", wantOut: "{}", wantTee: "{}"},
		{name: "a plain route streams", status: 202, writes: []string{"hello"}, sent: true, wantStatus: 202, wantOut: "hello", wantTee: "hello"},
		{name: "a HEAD request's bytes are dropped", head: true, status: 200, writes: []string{"hello"}, sent: true, wantStatus: 200},
		{name: "a 204's bytes are dropped", status: 204, writes: []string{"hello"}, sent: true, wantStatus: 204},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := newAnswer(0, &call{})
			rec, kept := httptest.NewRecorder(), &tee{}
			to := Target{W: rec, Head: tc.head, WriteTimeout: time.Minute, Tee: kept, Media: tc.media, Negotiates: tc.negotiated != ""}
			if tc.endpoint {
				a.Endpoint(to)
			} else {
				a.Plain(to)
			}
			a.SetMediaType(tc.negotiated)
			a.SetStatus(tc.status)
			for _, w := range tc.writes {
				if errno := a.Write([]byte(w)); errno != 0 {
					t.Fatalf("Write(%q) = %v, want 0", w, errno)
				}
			}
			if a.Sent() != tc.sent {
				t.Errorf("Sent() = %v, want %v", a.Sent(), tc.sent)
			}
			if tc.sent && rec.Code != tc.wantStatus {
				t.Errorf("status sent %d, want %d", rec.Code, tc.wantStatus)
			}
			if got := rec.Header().Get("Content-Type"); tc.wantCT != "" && got != tc.wantCT {
				t.Errorf("Content-Type %q, want %q", got, tc.wantCT)
			}
			if got := rec.Body.String(); got != tc.wantOut {
				t.Errorf("client got %q, want %q", got, tc.wantOut)
			}
			if got := string(a.Body()); got != tc.wantBuf {
				t.Errorf("buffered %q, want %q", got, tc.wantBuf)
			}
			if got := string(kept.b); got != tc.wantTee {
				t.Errorf("tee kept %q, want %q", got, tc.wantTee)
			}
			if a.Writer() != rec {
				t.Errorf("Writer() is not the target's writer")
			}
		})
	}
}

func TestWriteStops(t *testing.T) {
	t.Run("past limits.responseBytes", func(t *testing.T) {
		a, _ := newAnswer(4, &call{})
		if errno := a.Write([]byte("1234")); errno != 0 {
			t.Fatalf("Write within the bound = %v, want 0", errno)
		}
		var limit *guestfail.LimitError
		if err := recovered(func() { a.Write([]byte("5")) }); !errors.As(err, &limit) || !strings.Contains(limit.Msg, "limits.responseBytes") {
			t.Errorf("Write past the bound panicked with %v, want a LimitError naming limits.responseBytes", err)
		}
	})
	t.Run("past the deadline before a stream's first byte", func(t *testing.T) {
		a, _ := newAnswer(0, &call{expired: true})
		a.Plain(Target{W: httptest.NewRecorder()})
		if err := recovered(func() { a.Write([]byte("x")) }); !errors.Is(err, interrupt.ErrInterrupted) {
			t.Errorf("Write panicked with %v, want interrupt.ErrInterrupted", err)
		}
	})
	t.Run("the client left", func(t *testing.T) {
		a, clock := newAnswer(0, &call{})
		a.Plain(Target{W: failing{httptest.NewRecorder()}})
		if errno := a.Write([]byte("x")); errno != abi.ErrIO {
			t.Errorf("Write = %v, want ErrIO", errno)
		}
		if !clock.Expired() {
			t.Errorf("the guest was not stopped")
		}
		if errno := a.Write([]byte("y")); errno != abi.ErrIO {
			t.Errorf("a second Write = %v, want ErrIO", errno)
		}
	})
}

// recovered returns what f panicked with, as an error.
func recovered(f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err, _ = v.(error)
		}
	}()
	f()
	return nil
}

func TestSetHeader(t *testing.T) {
	long := strings.Repeat("v", abi.ResponseHeaderMaxBytes)
	for _, tc := range []struct {
		name    string
		set     [][2]string // name, value; a name starting with + adds
		want    abi.Errno   // of the last
		values  []string    // of X-A after
		faulted bool
	}{
		{name: "set replaces", set: [][2]string{{"x-a", "1"}, {"X-A", "2"}}, values: []string{"2"}},
		{name: "add appends", set: [][2]string{{"x-a", "1"}, {"+x-a", "2"}}, values: []string{"1", "2"}},
		{name: "too many bytes", set: [][2]string{{"x-a", "1"}, {"x-b", long}}, want: abi.ErrInvalid, values: []string{"1"}, faulted: true},
		{name: "a replaced value frees its bytes", set: [][2]string{{"x-a", long[:abi.ResponseHeaderMaxBytes-10]}, {"x-a", "2"}, {"x-b", long[:100]}}, values: []string{"2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, clock := newAnswer(0, &call{})
			var errno abi.Errno
			for _, kv := range tc.set {
				name, add := strings.CutPrefix(kv[0], "+")
				errno = a.SetHeader(name, kv[1], add)
			}
			if errno != tc.want {
				t.Errorf("last SetHeader = %v, want %v", errno, tc.want)
			}
			if got := a.Header()["X-A"]; strings.Join(got, ",") != strings.Join(tc.values, ",") {
				t.Errorf("X-A = %q, want %q", got, tc.values)
			}
			if (a.Fault() != "") != tc.faulted {
				t.Errorf("Fault() = %q, want a fault: %v", a.Fault(), tc.faulted)
			}
			if tc.faulted {
				if clock.Expired() {
					t.Errorf("the guest was stopped at its first fault; it is told first")
				}
				if a.SetHeader("x-c", "1", false) != abi.ErrInvalid || !clock.Expired() {
					t.Errorf("a guest going on after its fault was not stopped")
				}
				if a.Write([]byte("x")) != abi.ErrInvalid {
					t.Errorf("a faulted call's Write was taken")
				}
			}
		})
	}
}

func TestRestartAndRelease(t *testing.T) {
	a, _ := newAnswer(0, &call{})
	for i := range abi.ResponseHeaderMaxCount {
		if errno := a.SetHeader("x-n", "1", i > 0); errno != 0 {
			t.Fatalf("header %d refused: %v", i, errno)
		}
	}
	if a.SetHeader("x-n", "1", true) != abi.ErrInvalid {
		t.Fatalf("header %d taken, want refused", abi.ResponseHeaderMaxCount+1)
	}
	a.Restart(http.StatusBadRequest)
	if a.Status() != http.StatusBadRequest || len(a.Header()) != 0 || a.Fault() != "" {
		t.Fatalf("after Restart: status %d, %d headers, fault %q; want 400, none, none", a.Status(), len(a.Header()), a.Fault())
	}
	if errno := a.SetHeader("x-n", "1", false); errno != 0 {
		t.Errorf("after Restart the count was kept: %v", errno)
	}
	a.Write(make([]byte, 2*maxKeptBuffer))
	a.Release()
	a.Reset(0, &guestclock.Clock{}, &call{})
	if a.buf.Cap() > maxKeptBuffer || a.Status() != http.StatusOK || len(a.Header()) != 0 || a.Writer() != nil {
		t.Errorf("after Release and Reset: buffer cap %d, status %d, %d headers, writer %v", a.buf.Cap(), a.Status(), len(a.Header()), a.Writer())
	}
}
