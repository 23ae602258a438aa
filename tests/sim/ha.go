package main

// vSphere HA heartbeat datastores (-ha-heartbeat NAME[,NAME]). HA keeps
// heartbeat files on shared datastores, NFS included, and vCenter refuses to
// unmount one from a host of the cluster while HA uses it (KB 2004605); the
// cluster's RetrieveDasAdvancedRuntimeInfo lists them. 0.24.2 has neither.
//
// Cluster DC0_C0 heartbeats on the named datastores. The names are resolved
// at each call, because a test mounts the datastore after the lab starts: a
// name counts once it exists and a host of the cluster mounts it.
//   RetrieveDasAdvancedRuntimeInfo (on the cluster): ClusterDasFdmAdvancedRuntimeInfo
//     with heartbeatDatastoreInfo {datastore, hosts (the cluster hosts that
//     mount it)} per such datastore; with no -ha-heartbeat, or on another
//     cluster, an empty answer (HA not configured).
//   RemoveDatastore of such a datastore on a host of the cluster: ResourceInUse,
//     faultstring "The resource 'NAME' is in use.", as vCenter answers.

import (
	"flag"
	"net/http"
	"strings"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// haClusterName is the cluster of the VPX model (inventory.go).
const haClusterName = "DC0_C0"

type haHeartbeat struct {
	names []string
	l     *lab
}

func (h *haHeartbeat) flags(fs *flag.FlagSet) {
	fs.Func("ha-heartbeat", "datastores (comma list) cluster "+haClusterName+
		" uses for vSphere HA heartbeating: listed by RetrieveDasAdvancedRuntimeInfo, RemoveDatastore refused",
		func(v string) error {
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					h.names = append(h.names, s)
				}
			}
			return nil
		})
}

func (h *haHeartbeat) setup(l *lab) error {
	h.l = l
	l.beforeCall(h.hook)
	return nil
}

func (h *haHeartbeat) hook(c *soapCall, w http.ResponseWriter) bool {
	// Without a session the simulator gives its NotAuthenticated.
	if !h.l.sessions.valid(c.Session) {
		return false
	}
	switch c.Method {
	case "RetrieveDasAdvancedRuntimeInfo":
		cl, ok := simulator.Map.Get(c.This).(*simulator.ClusterComputeResource)
		if !ok {
			return false
		}
		h.writeInfo(w, cl)
		return true
	case "RemoveDatastore":
		return h.refuseRemove(c, w)
	}
	return false
}

// heartbeatCluster is the cluster that heartbeats on -ha-heartbeat, if any.
func (h *haHeartbeat) heartbeatCluster() *simulator.ClusterComputeResource {
	if len(h.names) == 0 {
		return nil
	}
	return clusterNamed(haClusterName)
}

// heartbeatHosts lists the hosts of cl that mount ds.
func heartbeatHosts(cl *simulator.ClusterComputeResource, ds *simulator.Datastore) []types.ManagedObjectReference {
	var hosts []types.ManagedObjectReference
	for _, ref := range cl.Host {
		if host, ok := simulator.Map.Get(ref).(*simulator.HostSystem); ok &&
			simulator.FindReference(host.Datastore, ds.Self) != nil {
			hosts = append(hosts, ref)
		}
	}
	return hosts
}

func (h *haHeartbeat) writeInfo(w http.ResponseWriter, cl *simulator.ClusterComputeResource) {
	const method = "RetrieveDasAdvancedRuntimeInfo"
	if hb := h.heartbeatCluster(); hb == nil || hb.Self != cl.Self {
		writeVoidResponse(w, method)
		return
	}
	var b strings.Builder
	for _, name := range h.names {
		ds := datastoreNamed(name)
		if ds == nil {
			continue
		}
		hosts := heartbeatHosts(cl, ds)
		if len(hosts) == 0 {
			continue
		}
		b.WriteString("<heartbeatDatastoreInfo>" + morefXML("datastore", ds.Self))
		for _, ref := range hosts {
			b.WriteString(morefXML("hosts", ref))
		}
		b.WriteString("</heartbeatDatastoreInfo>")
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(envOpen + `<` + method + `Response xmlns="urn:vim25">` +
		`<returnval xsi:type="ClusterDasFdmAdvancedRuntimeInfo">` + b.String() + `</returnval>` +
		`</` + method + `Response>` + envClose))
}

// refuseRemove answers RemoveDatastore of a heartbeat datastore on a host of
// the heartbeating cluster.
func (h *haHeartbeat) refuseRemove(c *soapCall, w http.ResponseWriter) bool {
	cl := h.heartbeatCluster()
	dss, ok := simulator.Map.Get(c.This).(*nasDatastoreSystem)
	var req types.RemoveDatastore
	if cl == nil || !ok || decodeRequest(c.Body, &req) != nil {
		return false
	}
	host := dss.host()
	ds, ok := simulator.Map.Get(req.Datastore).(*simulator.Datastore)
	// Not mounted there: the simulator's NotFound.
	if host == nil || !ok || simulator.FindReference(cl.Host, host.Self) == nil ||
		simulator.FindReference(host.Datastore, ds.Self) == nil {
		return false
	}
	for _, name := range h.names {
		if name == ds.Name {
			writeFault(w, "The resource '"+ds.Name+"' is in use.",
				&types.ResourceInUse{Type: "Datastore", Name: ds.Name})
			return true
		}
	}
	return false
}
