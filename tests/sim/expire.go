package main

// -expire-after N: a vCenter session timeout at a chosen moment. When the
// Nth POST to /sdk arrives (failed calls count too), every client session is
// ended before that call is looked at, once. The client then sees what a
// real vCenter gives an expired session:
//   - ordinary methods and ContinueRetrievePropertiesEx: HTTP 500
//     NotAuthenticated (the simulator's dispatcher, no session);
//   - RetrieveProperties/RetrievePropertiesEx: HTTP 200, every object's
//     properties in missingSet with a NotAuthenticated fault (paging.go);
//   - ContainerViews, PropertyCollectors, filters and paging tokens of the
//     old session are gone (ManagedObjectNotFound / InvalidArgument after a
//     new Login).

import (
	"flag"
	"log"
	"net/http"
)

type sessionExpiry struct {
	after int64
	l     *lab
}

func (e *sessionExpiry) flags(fs *flag.FlagSet) {
	fs.Int64Var(&e.after, "expire-after", 0,
		"end all sessions when the Nth SOAP call arrives, before handling it (0 = never)")
}

func (e *sessionExpiry) setup(l *lab) error {
	e.l = l
	if e.after > 0 {
		l.beforeCall(e.hook)
	}
	return nil
}

func (e *sessionExpiry) hook(c *soapCall, _ http.ResponseWriter) bool {
	if c.Seq == e.after {
		n := e.l.expireSessions()
		log.Printf("call %d (%s): expired %d session(s)", c.Seq, c.Method, n)
	}
	return false
}
