package main

// Sessions. The simulator keeps its sessions in an unexported map; two
// exported doors reach it: Session.Get(SessionManager) returns a copy of the
// SessionManager whose sessionList holds every live session, and
// SessionManager.TerminateSession deletes sessions by key. Ending a session
// this way has the effect vCenter's idle timeout has: the cookie no longer
// maps to a session, so ordinary methods fail with NotAuthenticated, and the
// objects the session created (ContainerViews, PropertyCollectors, filters)
// are gone with its registry (ManagedObjectNotFound from a new session).
//
// strictSessions closes what 0.24.2 leaves open: /folder transfers need no
// cookie there, and Fetch/List pass without a session.

import (
	"context"
	"flag"
	"net/http"
	"strings"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

type sessionTable struct {
	mu    sync.Mutex
	kept  map[string]bool // sessions expire() leaves alone (the lab's own)
	probe *simulator.Session
}

func newSessionTable() *sessionTable {
	return &sessionTable{
		kept:  make(map[string]bool),
		probe: &simulator.Session{Registry: simulator.NewRegistry()},
	}
}

// list returns the keys of the live sessions (clone tickets included).
func (t *sessionTable) list() []string {
	ref := simulator.Map.SessionManager().Reference()
	sm, ok := t.probe.Get(ref).(*simulator.SessionManager)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(sm.SessionList))
	for _, s := range sm.SessionList {
		keys = append(keys, s.Key)
	}
	return keys
}

// valid reports whether key is a live session.
func (t *sessionTable) valid(key string) bool {
	if key == "" {
		return false
	}
	for _, k := range t.list() {
		if k == key {
			return true
		}
	}
	return false
}

func (t *sessionTable) keep(key string) {
	t.mu.Lock()
	t.kept[key] = true
	t.mu.Unlock()
}

// expire ends every session except the kept ones and returns how many.
func (t *sessionTable) expire() int {
	sm := simulator.Map.SessionManager()
	// TerminateSession refuses to end the caller's own session, so call it
	// as a session that does not exist.
	ctx := &simulator.Context{
		Context: context.Background(),
		Map:     simulator.Map,
		Session: &simulator.Session{
			UserSession: types.UserSession{Key: "labsim-expiry"},
			Registry:    simulator.NewRegistry(),
		},
	}
	n := 0
	for _, key := range t.list() {
		t.mu.Lock()
		kept := t.kept[key]
		t.mu.Unlock()
		if kept {
			continue
		}
		res := sm.TerminateSession(ctx, &types.TerminateSession{
			This:      sm.Reference(),
			SessionId: []string{key},
		})
		if res.Fault() == nil {
			n++
		}
	}
	return n
}

// strictSessions makes every method but the login family, and /folder, need
// a live session.
type strictSessions struct {
	l     *lab
	files *folderServer // GET and HEAD of files (folder.go)
}

func (s *strictSessions) flags(*flag.FlagSet) {}

func (s *strictSessions) setup(l *lab) error {
	s.l = l
	l.beforeCall(s.check)
	l.route("/folder/", s.folder)
	return nil
}

// check answers Fetch and List without a session with NotAuthenticated.
// (The simulator already refuses the other methods; RetrieveProperties(Ex)
// answer HTTP 200 with NotAuthenticated in missingSet, see paging.go.)
func (s *strictSessions) check(c *soapCall, w http.ResponseWriter) bool {
	switch c.Method {
	case "Fetch", "List":
	default:
		return false
	}
	if s.l.sessions.valid(c.Session) {
		return false
	}
	writeFault(w, "", &types.NotAuthenticated{
		NoPermission: types.NoPermission{Object: c.This, PrivilegeId: "System.View"},
	})
	return true
}

// folder serves /folder (datastore file transfer) only with a session cookie,
// as vCenter does; otherwise 401. Files are read as a host drawn from those
// that mount the datastore (-vc-folder-host) sees them. Like vCenter, and unlike the simulator's
// finder, it wants dcPath to be the datacenter's inventory path
// ("F0/DC0"): the name alone only works for a datacenter in the root folder.
func (s *strictSessions) folder(w http.ResponseWriter, r *http.Request) {
	ck, err := r.Cookie(soap.SessionCookieName)
	if err != nil || !s.l.sessions.valid(ck.Value) {
		w.Header().Set("WWW-Authenticate", `Basic realm="VMware HTTP server"`)
		http.Error(w, "401 Unauthorized", http.StatusUnauthorized)
		return
	}
	if dc := r.URL.Query().Get("dcPath"); dc != "" && !s.isDatacenterPath(dc) {
		http.NotFound(w, r)
		return
	}
	// vCenter relays a file request to a host that mounts the datastore.
	if ds, rel := folderTarget(r); ds != nil && s.files.serve(w, r, ds, rel, views.draw(ds)) {
		return
	}
	s.l.sim.ServeHTTP(w, r)
}

// isDatacenterPath says whether p is some datacenter's inventory path.
func (s *strictSessions) isDatacenterPath(p string) bool {
	root := s.l.client.ServiceContent.RootFolder
	for _, e := range simulator.Map.All("Datacenter") {
		var names []string
		for ent, ok := e.(mo.Entity); ok; {
			me := ent.Entity()
			names = append([]string{me.Name}, names...)
			if me.Parent == nil || *me.Parent == root {
				break
			}
			ent, ok = simulator.Map.Get(*me.Parent).(mo.Entity)
		}
		if strings.Join(names, "/") == strings.Trim(p, "/") {
			return true
		}
	}
	return false
}
