package main

// PropertyCollector paging and the no-session answer.
//
// 0.24.2 ignores RetrieveOptions.maxObjects, never returns a token and has
// no ContinueRetrievePropertiesEx/CancelRetrievePropertiesEx, so a client's
// paging loop never runs against it. pagingCollector wraps the simulator's
// PropertyCollector under the same moref (the dispatcher calls methods by
// name, example_extend_test.go), collects as before, then cuts the result
// into pages of maxObjects with a token per remaining page. Tokens belong to
// the session that got them and die with it (expiry, see expire.go).
//
// The simulator gives every session its own instance of the
// ServiceContent.propertyCollector singleton, made with reflect.New of the
// registered type (Session.Get): the wrapper type is what each session gets,
// zero-valued, so the page store is package state. CreatePropertyCollector
// is overridden so that collectors created by clients page as well.
//
// Without a session 0.24.2 answers RetrieveProperties(Ex) with HTTP 200 and
// NotAuthenticated in each property's missingSet (vsphere-api.md 2.2), but
// only for objects it can find globally; a root that belonged to a session
// that is gone (the usual ContainerView) made it fail with
// ManagedObjectNotFound instead. The wrapper answers such roots in the same
// missingSet shape, so an expired session always looks like vCenter's.

import (
	"flag"
	"fmt"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

type paging struct{}

func (paging) flags(*flag.FlagSet) {}

func (paging) setup(l *lab) error {
	pc := &pagingCollector{}
	pc.Self = l.client.ServiceContent.PropertyCollector
	simulator.Map.Put(pc)
	l.onExpire(pages.clear)
	return nil
}

// pageStore holds the objects not yet returned, per token.
type pageStore struct {
	mu     sync.Mutex
	serial int64
	m      map[string]*pageState
}

type pageState struct {
	session string
	size    int
	rest    []types.ObjectContent
}

var pages = &pageStore{m: make(map[string]*pageState)}

// page returns the first size objects and, if more remain, a token for them.
func (s *pageStore) page(session string, objs []types.ObjectContent, size int) *types.RetrieveResult {
	if size <= 0 || len(objs) <= size {
		return &types.RetrieveResult{Objects: objs}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.serial++
	token := fmt.Sprintf("%d", s.serial)
	s.m[token] = &pageState{session: session, size: size, rest: objs[size:]}
	return &types.RetrieveResult{Token: token, Objects: objs[:size]}
}

// next returns the page for token, which must belong to session.
func (s *pageStore) next(session, token string) (*types.RetrieveResult, bool) {
	s.mu.Lock()
	st, ok := s.m[token]
	if ok && st.session == session {
		delete(s.m, token)
	}
	s.mu.Unlock()
	if !ok || st.session != session {
		return nil, false
	}
	return s.page(session, st.rest, st.size), true
}

func (s *pageStore) cancel(session, token string) {
	s.mu.Lock()
	if st, ok := s.m[token]; ok && st.session == session {
		delete(s.m, token)
	}
	s.mu.Unlock()
}

func (s *pageStore) clear() {
	s.mu.Lock()
	s.m = make(map[string]*pageState)
	s.mu.Unlock()
}

type pagingCollector struct {
	simulator.PropertyCollector
}

func (pc *pagingCollector) RetrievePropertiesEx(ctx *simulator.Context, r *types.RetrievePropertiesEx) soap.HasFault {
	if ctx.Session == nil {
		objs, fault := pc.unauthenticated(ctx, r.This, r.SpecSet)
		if fault != nil {
			return &methods.RetrievePropertiesExBody{Fault_: fault}
		}
		return &methods.RetrievePropertiesExBody{Res: &types.RetrievePropertiesExResponse{
			Returnval: &types.RetrieveResult{Objects: objs},
		}}
	}
	body, ok := pc.PropertyCollector.RetrievePropertiesEx(ctx, r).(*methods.RetrievePropertiesExBody)
	if !ok || body.Fault_ != nil || body.Res == nil || body.Res.Returnval == nil {
		return body
	}
	body.Res.Returnval = pages.page(ctx.Session.Key, body.Res.Returnval.Objects, int(r.Options.MaxObjects))
	return body
}

func (pc *pagingCollector) RetrieveProperties(ctx *simulator.Context, r *types.RetrieveProperties) soap.HasFault {
	if ctx.Session != nil {
		return pc.PropertyCollector.RetrieveProperties(ctx, r)
	}
	objs, fault := pc.unauthenticated(ctx, r.This, r.SpecSet)
	if fault != nil {
		return &methods.RetrievePropertiesBody{Fault_: fault}
	}
	return &methods.RetrievePropertiesBody{Res: &types.RetrievePropertiesResponse{Returnval: objs}}
}

func (pc *pagingCollector) ContinueRetrievePropertiesEx(ctx *simulator.Context, r *types.ContinueRetrievePropertiesEx) soap.HasFault {
	body := &methods.ContinueRetrievePropertiesExBody{}
	if ctx.Session == nil { // the dispatcher refuses first; kept for safety
		body.Fault_ = simulator.Fault("", &types.NotAuthenticated{
			NoPermission: types.NoPermission{Object: r.This, PrivilegeId: "System.View"},
		})
		return body
	}
	res, ok := pages.next(ctx.Session.Key, r.Token)
	if !ok {
		body.Fault_ = simulator.Fault("A specified parameter was not correct: token",
			&types.InvalidArgument{InvalidProperty: "token"})
		return body
	}
	body.Res = &types.ContinueRetrievePropertiesExResponse{Returnval: *res}
	return body
}

// CancelRetrievePropertiesEx drops the remaining pages; an unknown or used-up
// token is not an error.
func (pc *pagingCollector) CancelRetrievePropertiesEx(ctx *simulator.Context, r *types.CancelRetrievePropertiesEx) soap.HasFault {
	if ctx.Session != nil {
		pages.cancel(ctx.Session.Key, r.Token)
	}
	return &methods.CancelRetrievePropertiesExBody{Res: new(types.CancelRetrievePropertiesExResponse)}
}

func (pc *pagingCollector) CreatePropertyCollector(ctx *simulator.Context, r *types.CreatePropertyCollector) soap.HasFault {
	cpc := &pagingCollector{}
	cpc.Self.Type = "PropertyCollector" // Session.Put names it after the Go type otherwise
	ref := ctx.Session.Put(cpc).Reference()
	return &methods.CreatePropertyCollectorBody{Res: &types.CreatePropertyCollectorResponse{Returnval: ref}}
}

// unauthenticated collects as the simulator does without a session, and adds
// a NotAuthenticated missingSet entry per requested property for every root
// object that does not exist outside a session.
func (pc *pagingCollector) unauthenticated(ctx *simulator.Context, this types.ManagedObjectReference,
	specs []types.PropertyFilterSpec) ([]types.ObjectContent, *soap.Fault) {
	var found []types.PropertyFilterSpec
	var missing []types.ObjectContent
	seen := make(map[types.ManagedObjectReference]bool)
	for _, spec := range specs {
		s := spec
		s.ObjectSet = nil
		for _, o := range spec.ObjectSet {
			if simulator.Map.Get(o.Obj) != nil {
				s.ObjectSet = append(s.ObjectSet, o)
				continue
			}
			if seen[o.Obj] {
				continue
			}
			seen[o.Obj] = true
			content := types.ObjectContent{Obj: o.Obj}
			for _, p := range requestedPaths(spec.PropSet, o.Obj.Type) {
				content.MissingSet = append(content.MissingSet, types.MissingProperty{
					Path: p,
					Fault: types.LocalizedMethodFault{Fault: &types.NotAuthenticated{
						NoPermission: types.NoPermission{Object: o.Obj, PrivilegeId: "System.Read"},
					}},
				})
			}
			missing = append(missing, content)
		}
		if len(s.ObjectSet) > 0 {
			found = append(found, s)
		}
	}
	var objs []types.ObjectContent
	if len(found) > 0 {
		res := pc.PropertyCollector.RetrievePropertiesEx(ctx, &types.RetrievePropertiesEx{This: this, SpecSet: found})
		if f := res.Fault(); f != nil {
			return nil, f
		}
		if body, ok := res.(*methods.RetrievePropertiesExBody); ok && body.Res != nil && body.Res.Returnval != nil {
			objs = body.Res.Returnval.Objects
		}
	}
	return append(objs, missing...), nil
}

// requestedPaths are the paths asked for objects of type kind, or all paths
// asked for when none names that type (a ContainerView root asks for the
// properties of the objects in the view); "name" if no path was given.
func requestedPaths(props []types.PropertySpec, kind string) []string {
	var same, all []string
	seenAll := make(map[string]bool)
	for _, p := range props {
		for _, path := range p.PathSet {
			if p.Type == kind {
				same = append(same, path)
			}
			if !seenAll[path] {
				seenAll[path] = true
				all = append(all, path)
			}
		}
	}
	switch {
	case len(same) > 0:
		return same
	case len(all) > 0:
		return all
	}
	return []string{"name"}
}
