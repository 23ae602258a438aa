package main

// SessionManager.AcquireGenericServiceTicket for the ESXi hosts' /folder
// (esxi-reality.md #5): to read a datastore file as one host sees it, a
// client asks vCenter for a ticket for exactly one request
// (SessionManagerHttpServiceRequestSpec{method httpGet|httpHead, url
// https://<host>/folder/<path>?dcPath=ha-datacenter&dsName=<ds>}) and sends
// it to that host as cookie vmware_cgi_ticket (govmomi: Datastore.
// ServiceTicket). 0.24.2 answers any spec with a uuid and its own host
// name. Here the url must name a host (inventory name or management IP,
// port 443 or none), else InvalidArgument{spec.url}; the ticket is
// {id (32 random hex digits), hostName (the host's inventory name),
// sslThumbprint (the host's as advertised)}, good for one use within 60 s.

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

const (
	ticketCookie   = "vmware_cgi_ticket"
	ticketLifetime = 60 * time.Second
)

type serviceTicket struct {
	host    types.ManagedObjectReference
	method  string // GET or HEAD
	path    string // decoded URL path
	dcPath  string
	dsName  string
	expires time.Time
}

type ticketTable struct {
	l  *lab
	e  *hostEndpoint
	mu sync.Mutex
	m  map[string]serviceTicket
}

func newTicketTable(l *lab, e *hostEndpoint) *ticketTable {
	t := &ticketTable{l: l, e: e, m: make(map[string]serviceTicket)}
	l.beforeCall(t.acquire)
	return t
}

var ticketMethods = map[string]string{"httpGet": http.MethodGet, "httpHead": http.MethodHead}

// acquire answers AcquireGenericServiceTicket (with a session; without,
// the simulator refuses it).
func (t *ticketTable) acquire(c *soapCall, w http.ResponseWriter) bool {
	if c.Method != "AcquireGenericServiceTicket" || !t.l.sessions.valid(c.Session) {
		return false
	}
	invalid := func(property string) bool {
		writeFault(w, "A specified parameter was not correct: "+property, &types.InvalidArgument{InvalidProperty: property})
		return true
	}
	var req types.AcquireGenericServiceTicket
	if err := decodeRequest(c.Body, &req); err != nil {
		return invalid("spec")
	}
	spec, ok := req.Spec.(*types.SessionManagerHttpServiceRequestSpec)
	if !ok {
		return invalid("spec")
	}
	method, ok := ticketMethods[spec.Method]
	if !ok {
		return invalid("spec.method")
	}
	u, err := url.Parse(spec.Url)
	if err != nil || u.Scheme != "https" || (u.Port() != "" && u.Port() != strconv.Itoa(endpointPort)) {
		return invalid("spec.url")
	}
	host := t.e.hostByName(u.Hostname())
	if host == nil {
		return invalid("spec.url")
	}
	id := fmt.Sprintf("%x", randBytes(16))
	q := u.Query()
	t.mu.Lock()
	now := time.Now()
	for k, old := range t.m {
		if now.After(old.expires) {
			delete(t.m, k)
		}
	}
	t.m[id] = serviceTicket{host: host.Self, method: method, path: u.Path, dcPath: q.Get("dcPath"),
		dsName: q.Get("dsName"), expires: now.Add(ticketLifetime)}
	t.mu.Unlock()

	thumb := ""
	if t.e.advertised != "" {
		thumb = "<sslThumbprint>" + xmlText(t.e.advertised) + "</sslThumbprint>"
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, envOpen+`<AcquireGenericServiceTicketResponse xmlns="urn:vim25"><returnval><id>`+id+
		`</id><hostName>`+xmlText(host.Name)+`</hostName>`+thumb+`</returnval></AcquireGenericServiceTicketResponse>`+envClose)
	return true
}

// use checks ticket id for request r on host and uses it up: 200 when it
// is good for exactly this request, 401 when it is unknown (never issued,
// used or expired), 403 when it is for another host, path or method.
func (t *ticketTable) use(id string, host *simulator.HostSystem, r *http.Request) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	tk, ok := t.m[id]
	if !ok || time.Now().After(tk.expires) {
		delete(t.m, id)
		return http.StatusUnauthorized
	}
	q := r.URL.Query()
	if tk.host != host.Self || tk.method != r.Method || tk.path != r.URL.Path ||
		tk.dcPath != q.Get("dcPath") || tk.dsName != q.Get("dsName") {
		return http.StatusForbidden
	}
	delete(t.m, id)
	return http.StatusOK
}

// hostByName finds a host by inventory name or management IP.
func (e *hostEndpoint) hostByName(name string) *simulator.HostSystem {
	if h, ok := e.byIP[name]; ok {
		return h
	}
	return hostNamed(name)
}
