package main

// Small SOAP helpers for the front (lab.go): it must know a call's method and
// _this without decoding the whole request, answer some calls itself, and
// read the simulator's answers to calls it made on a client's behalf.

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/http"
	"reflect"

	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
	vimxml "github.com/vmware/govmomi/vim25/xml"
)

const (
	soapEnvNS = "http://schemas.xmlsoap.org/soap/envelope/"
	envOpen   = `<?xml version="1.0" encoding="UTF-8"?>` +
		`<soapenv:Envelope xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/"` +
		` xmlns:soapenv="` + soapEnvNS + `"` +
		` xmlns:xsd="http://www.w3.org/2001/XMLSchema"` +
		` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>`
	envClose = `</soapenv:Body></soapenv:Envelope>`
)

// peekCall returns the name of the first element in the SOAP Body (the
// method) and its _this argument, reading no further than that.
func peekCall(body []byte) (string, types.ManagedObjectReference) {
	var this types.ManagedObjectReference
	d := xml.NewDecoder(bytes.NewReader(body))
	inBody := false
	for {
		tok, err := d.Token()
		if err != nil {
			return "Unknown", this
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if !inBody {
			inBody = start.Name.Local == "Body"
			continue
		}
		method := start.Name.Local
		// _this is the first argument of every vim25 method.
		for {
			tok, err := d.Token()
			if err != nil {
				return method, this
			}
			switch t := tok.(type) {
			case xml.StartElement:
				if t.Name.Local == "_this" {
					var v struct {
						Type  string `xml:"type,attr"`
						Value string `xml:",chardata"`
					}
					if d.DecodeElement(&v, &t) == nil {
						this = types.ManagedObjectReference{Type: v.Type, Value: v.Value}
					}
				}
				return method, this
			case xml.EndElement:
				return method, this
			}
		}
	}
}

// xmlText escapes s for use as element content.
func xmlText(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func morefXML(name string, ref types.ManagedObjectReference) string {
	return fmt.Sprintf(`<%s type="%s">%s</%s>`, name, xmlText(ref.Type), xmlText(ref.Value), name)
}

// soapRequest builds a request envelope; args is the XML after _this.
func soapRequest(method string, this types.ManagedObjectReference, args string) []byte {
	return []byte(envOpen + `<` + method + ` xmlns="urn:vim25">` + morefXML("_this", this) + args +
		`</` + method + `>` + envClose)
}

// writeMorefResponse answers method with a single moref, e.g. the Task of a
// *_Task method.
func writeMorefResponse(w http.ResponseWriter, method string, ref types.ManagedObjectReference) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, envOpen+`<`+method+`Response xmlns="urn:vim25">`+morefXML("returnval", ref)+
		`</`+method+`Response>`+envClose)
}

// writeFault answers with HTTP 500 and a SOAP fault whose detail is fault,
// in the shape vCenter and the simulator use:
// <detail><NotAuthenticatedFault xmlns="urn:vim25" xsi:type="NotAuthenticated">...
func writeFault(w http.ResponseWriter, msg string, fault types.BaseMethodFault) {
	kind := reflect.TypeOf(fault).Elem().Name()
	var detail bytes.Buffer
	enc := vimxml.NewEncoder(&detail)
	start := vimxml.StartElement{
		Name: vimxml.Name{Local: kind + "Fault"},
		Attr: []vimxml.Attr{
			{Name: vimxml.Name{Local: "xmlns"}, Value: "urn:vim25"},
			{Name: vimxml.Name{Local: "xsi:type"}, Value: kind},
		},
	}
	if err := enc.EncodeElement(fault, start); err != nil {
		detail.Reset()
	}
	_ = enc.Flush()
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = fmt.Fprint(w, envOpen+`<soapenv:Fault><faultcode>ServerFaultCode</faultcode><faultstring>`+
		xmlText(msg)+`</faultstring><detail>`+detail.String()+`</detail></soapenv:Fault>`+envClose)
}

// readFault decodes the fault of an HTTP 500 SOAP answer.
func readFault(body []byte) *types.LocalizedMethodFault {
	var env struct {
		Body struct {
			Fault *soap.Fault `xml:"http://schemas.xmlsoap.org/soap/envelope/ Fault"`
		} `xml:"http://schemas.xmlsoap.org/soap/envelope/ Body"`
	}
	d := vimxml.NewDecoder(bytes.NewReader(body))
	d.TypeFunc = types.TypeFunc()
	if err := d.Decode(&env); err != nil || env.Body.Fault == nil {
		return &types.LocalizedMethodFault{
			Fault:            &types.SystemError{Reason: "unreadable fault"},
			LocalizedMessage: "unreadable fault",
		}
	}
	f := env.Body.Fault
	fault, ok := f.Detail.Fault.(types.BaseMethodFault)
	if !ok {
		fault = &types.SystemError{Reason: f.String}
	}
	return &types.LocalizedMethodFault{Fault: fault, LocalizedMessage: f.String}
}

// readReturnedMoref returns the moref in <returnval> of a successful answer.
func readReturnedMoref(body []byte) (types.ManagedObjectReference, bool) {
	d := xml.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := d.Token()
		if err != nil {
			return types.ManagedObjectReference{}, false
		}
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "returnval" {
			var v struct {
				Type  string `xml:"type,attr"`
				Value string `xml:",chardata"`
			}
			if d.DecodeElement(&v, &t) != nil || v.Type == "" {
				return types.ManagedObjectReference{}, false
			}
			return types.ManagedObjectReference{Type: v.Type, Value: v.Value}, true
		}
	}
}

// decodeRequest decodes the method element of a SOAP request (the first
// element in the Body) into v, e.g. a *types.RelocateVM_Task; xsi:type
// attributes select the vim25 types, as in the simulator's own decoder.
func decodeRequest(body []byte, v interface{}) error {
	d := vimxml.NewDecoder(bytes.NewReader(body))
	d.TypeFunc = types.TypeFunc()
	inBody := false
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		start, ok := tok.(vimxml.StartElement)
		if !ok {
			continue
		}
		if !inBody {
			inBody = start.Name.Local == "Body"
			continue
		}
		return d.DecodeElement(v, &start)
	}
}

// writeVoidResponse answers a method that returns nothing.
func writeVoidResponse(w http.ResponseWriter, method string) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, envOpen+`<`+method+`Response xmlns="urn:vim25"></`+method+`Response>`+envClose)
}

// taskError is a task's info.error with a human localizedMessage, as
// vCenter writes it (the simulator writes the Go type name there).
func taskError(msg string, fault types.BaseMethodFault) *types.LocalizedMethodFault {
	return &types.LocalizedMethodFault{Fault: fault, LocalizedMessage: msg}
}
