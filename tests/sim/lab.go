package main

// The lab's front door. simulator.Service.NewServer serves a plain
// http.ServeMux whose /sdk route decodes and dispatches SOAP at once, so
// there is no place inside the simulator to count calls, fail them, or
// expire sessions before they are dispatched. The front handler sits
// between the HTTP server and that mux: every POST to /sdk becomes a
// soapCall that passes through the features' hooks, in registration order,
// and then (unless a hook answered it) reaches the simulator unchanged.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// soapCall is one POST to the SDK endpoint.
type soapCall struct {
	Seq     int64                        // 1-based number of this POST among all POSTs to /sdk
	Method  string                       // e.g. "RetrievePropertiesEx"; "Unknown" if the body is not SOAP
	This    types.ManagedObjectReference // the _this argument
	Body    []byte                       // the request as received
	Session string                       // vmware_soap_session cookie value, "" if none
	Arrived time.Time
	Req     *http.Request
}

// callHook inspects a call before the simulator sees it. It returns true if
// it wrote the response itself, which ends the call's processing.
type callHook func(c *soapCall, w http.ResponseWriter) bool

// lab is what features hook into.
type lab struct {
	dir      string
	model    *simulator.Model
	client   *vim25.Client // in-process client, bypasses HTTP and the hooks
	sessions *sessionTable

	sim    http.Handler   // the simulator's own mux, set once the server exists
	routes *http.ServeMux // HTTP routes that take precedence over sim

	seq       int64 // POSTs to /sdk so far (atomic)
	before    []callHook
	after     []func(c *soapCall, status int)
	lateFail  func(c *soapCall) bool // processed, then answered 503 (faults.go)
	expiries  []func()
	closers   []func()
	claimed   map[string]bool // task methods a feature implements itself
	slow      *slowTasks      // task timing (tasks.go), for claimed tasks too
	clock     *labClock       // what slow tasks wait on: the wall or the test's (labclock.go)
	svmotions *svmotionQueue  // vCenter's Storage vMotion limits (svqueue.go)

	internalMu  sync.Mutex
	internalKey string // session used by dispatch()
}

func newLab(model *simulator.Model, dir string) (*lab, error) {
	c, err := vim25.NewClient(context.Background(), model.Service)
	if err != nil {
		return nil, err
	}
	return &lab{
		dir:      dir,
		model:    model,
		client:   c,
		sessions: newSessionTable(),
		routes:   http.NewServeMux(),
		claimed:  make(map[string]bool),
	}, nil
}

// beforeCall adds a hook run for every SOAP call before dispatch.
func (l *lab) beforeCall(h callHook) { l.before = append(l.before, h) }

// afterCall adds an observer run after every SOAP call with its HTTP status
// (0 if the connection was dropped without an answer).
func (l *lab) afterCall(f func(c *soapCall, status int)) { l.after = append(l.after, f) }

// route serves pattern from the front, in place of the simulator.
func (l *lab) route(pattern string, h http.HandlerFunc) { l.routes.HandleFunc(pattern, h) }

// onExpire registers cleanup for state tied to sessions (see expireSessions).
func (l *lab) onExpire(f func()) { l.expiries = append(l.expiries, f) }

// onClose registers cleanup run at shutdown.
func (l *lab) onClose(f func()) { l.closers = append(l.closers, f) }

// claimTask marks a *_Task method as implemented by a feature with its own
// timing, so that the generic slow-task wrapper (tasks.go) leaves it alone.
func (l *lab) claimTask(method string) { l.claimed[method] = true }

// expireSessions ends every client session, as a vCenter session timeout
// does, and drops everything the features keep per session.
func (l *lab) expireSessions() int {
	n := l.sessions.expire()
	for _, f := range l.expiries {
		f()
	}
	return n
}

func (l *lab) close() {
	for _, f := range l.closers {
		f()
	}
}

// front returns the HTTP handler that serves the lab.
func (l *lab) front() http.Handler {
	mux := l.mux()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Go's ServeMux answers a path with an empty segment ("a//b", as
		// "[ds] dir/" + "/" + "file" gives) with a 301 redirect that
		// clients of /folder do not follow; vCenter's file access takes
		// such paths as they are meant. Clean them here, and say so.
		if p := r.URL.Path; strings.HasPrefix(p, "/folder/") && strings.Contains(p, "//") {
			clean := path.Clean(p)
			log.Printf("%s %s: empty path segment, serving %s", r.Method, p, clean)
			r.URL.Path, r.URL.RawPath = clean, ""
		}
		mux.ServeHTTP(w, r)
	})
}

func (l *lab) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc(vim25.Path, l.serveSDK)
	mux.HandleFunc(vim25.Path+"/vimService", l.serveSDK)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if h, pattern := l.routes.Handler(r); pattern != "" {
			h.ServeHTTP(w, r)
			return
		}
		l.sim.ServeHTTP(w, r)
	})
	return mux
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (l *lab) serveSDK(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		l.sim.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	c := &soapCall{
		Seq:     atomic.AddInt64(&l.seq, 1),
		Body:    body,
		Arrived: time.Now(),
		Req:     r,
	}
	c.Method, c.This = peekCall(body)
	if ck, err := r.Cookie(soap.SessionCookieName); err == nil {
		c.Session = ck.Value
	}

	// A late failure lets the call do its work into a recorder, then
	// answers 503: the proxy that lost the service's answer.
	late := l.lateFail != nil && l.lateFail(c)
	var out http.ResponseWriter = w
	if late {
		out = httptest.NewRecorder()
	}
	sw := &statusWriter{ResponseWriter: out}
	defer func() {
		// A simulator method that panics (0.24.2's QueryPerfCounter does)
		// makes net/http drop the connection: report status 0, then let
		// net/http handle the panic as before.
		p := recover()
		status := sw.status
		if p != nil {
			status = 0
		} else if status == 0 {
			status = http.StatusOK // nothing written: net/http sends an empty 200
		}
		if late && p == nil {
			writeUnavailable(w)
			status = http.StatusServiceUnavailable
		}
		for _, f := range l.after {
			f(c, status)
		}
		if p != nil {
			panic(p)
		}
	}()

	for _, h := range l.before {
		if h(c, sw) {
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	l.sim.ServeHTTP(sw, r)
}

// dispatch sends a SOAP request straight to the simulator, on a session of
// the lab's own that expiry leaves alone. Used to perform a call later than
// the client made it (tasks.go). It neither counts as a call nor runs hooks.
func (l *lab) dispatch(body []byte) (int, []byte, error) {
	key, err := l.internalSession(false)
	if err != nil {
		return 0, nil, err
	}
	status, out := l.post(body, key)
	if status == http.StatusInternalServerError && bytes.Contains(out, []byte("NotAuthenticated")) {
		// Someone ended our session after all: log in again once.
		if key, err = l.internalSession(true); err != nil {
			return 0, nil, err
		}
		status, out = l.post(body, key)
	}
	return status, out, nil
}

func (l *lab) post(body []byte, session string) (int, []byte) {
	req := httptest.NewRequest(http.MethodPost, vim25.Path, bytes.NewReader(body))
	req.RemoteAddr = "127.0.0.1:0"
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	if session != "" {
		req.AddCookie(&http.Cookie{Name: soap.SessionCookieName, Value: session})
	}
	rec := httptest.NewRecorder()
	l.sim.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

func (l *lab) internalSession(renew bool) (string, error) {
	l.internalMu.Lock()
	defer l.internalMu.Unlock()
	if l.internalKey != "" && !renew {
		return l.internalKey, nil
	}
	sm := simulator.Map.SessionManager().Reference()
	login := soapRequest("Login", sm,
		"<userName>"+xmlText(labUser)+"</userName><password>"+xmlText(labPassword)+"</password>")
	req := httptest.NewRequest(http.MethodPost, vim25.Path, bytes.NewReader(login))
	req.RemoteAddr = "127.0.0.1:0"
	rec := httptest.NewRecorder()
	l.sim.ServeHTTP(rec, req)
	for _, ck := range rec.Result().Cookies() {
		if ck.Name == soap.SessionCookieName {
			l.sessions.keep(ck.Value)
			l.internalKey = ck.Value
			return ck.Value, nil
		}
	}
	return "", fmt.Errorf("internal login failed: HTTP %d", rec.Code)
}
