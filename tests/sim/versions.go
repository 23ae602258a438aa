package main

// GET /sdk/vimServiceVersions.xml. 0.24.2 serves it too, but lists 5.5 as
// well and indents; the lab answers with the exact document nfsagent's
// version negotiation is tested against.

import (
	"flag"
	"net/http"
)

const vimServiceVersions = `<?xml version="1.0" encoding="UTF-8" ?>` +
	`<namespaces version="1.0"><namespace><name>urn:vim25</name><version>6.5</version>` +
	`<priorVersions><version>6.0</version></priorVersions></namespace></namespaces>`

type serviceVersions struct{}

func (serviceVersions) flags(*flag.FlagSet) {}

func (serviceVersions) setup(l *lab) error {
	l.route("/sdk/vimServiceVersions.xml", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/xml")
		_, _ = w.Write([]byte(vimServiceVersions))
	})
	return nil
}
