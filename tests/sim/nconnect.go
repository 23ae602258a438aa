package main

// HostNasVolumeSpec.connections (vSphere API 8.0.1): a datastore's TCP
// connections to its server, nConnect. ESXi takes it for NFS 3 from 8.0 U1
// and for NFS 4.1 from 8.0 U3, 1 to 8 (4 unless /NFS/MaxConnectionsPerDatastore
// or /NFS41/MaxNConnectConns is raised). Debian's govmomi predates the field
// and drops it when it decodes the request, so it is read from the request
// as received, keyed by the host's datastore system and the datastore name.
// A host older than the version refuses it with InvalidArgument; one that
// takes it says so on stderr ("connections N"), which tests read: the
// HostMountInfo.numTcpConnections vSphere 8.0 U1 reports is newer than
// Debian's govmomi too.

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/soap"
)

var (
	connectionsElem = regexp.MustCompile(`<connections>\s*([0-9]+)\s*</connections>`)
	localPathElem   = regexp.MustCompile(`<localPath>([^<]*)</localPath>`)
)

type nconnectAsks struct {
	mu    sync.Mutex
	asked map[string]int // by datastore system moref + "/" + localPath
}

func (a *nconnectAsks) note(c *soapCall) {
	if c.Method != "CreateNasDatastore" {
		return
	}
	m, name := connectionsElem.FindSubmatch(c.Body), localPathElem.FindSubmatch(c.Body)
	if m == nil || name == nil {
		return
	}
	n, _ := strconv.Atoi(string(m[1]))
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.asked == nil {
		a.asked = make(map[string]int)
	}
	a.asked[c.This.Value+"/"+string(name[1])] = n
}

// take returns, and forgets, the connections asked for in the mount of name
// through dss (0: none asked).
func (a *nconnectAsks) take(dss, name string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.asked[dss+"/"+name]
	delete(a.asked, dss+"/"+name)
	return n
}

// nconnectFault is the host's refusal of n connections for kind, or nil.
func nconnectFault(host *simulator.HostSystem, kind string, n int) *soap.Fault {
	need := "8.0.1"
	if kind == nfs41 {
		need = "8.0.3"
	}
	if n < 1 || n > 8 || versionBelow(host.Config.Product.Version, need) {
		return invalidArgument("spec.connections")
	}
	return nil
}

// versionBelow compares dotted versions number by number ("8.0" < "8.0.1").
func versionBelow(v, than string) bool {
	a, b := strings.Split(v, "."), strings.Split(than, ".")
	for i := 0; i < len(b); i++ {
		x, y := 0, 0
		if i < len(a) {
			x, _ = strconv.Atoi(a[i])
		}
		y, _ = strconv.Atoi(b[i])
		if x != y {
			return x < y
		}
	}
	return false
}
