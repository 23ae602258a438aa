#!/usr/bin/env python3
"""A misbehaving HTTPS server, to prove nfsagent survives replies that are not
SOAP.  It speaks no vSphere at all (the simulator is the only SOAP peer).

Usage: badserver.py CERT KEY MODE   (prints the port, then serves; a line
"request" on stderr for each request)
MODE: html | notsoap | truncated (ends mid-element) | cut (hangs up mid-reply) | hang
"""
import http.server
import socketserver
import ssl
import sys
import time

CERT, KEY, MODE = sys.argv[1:4]

BODIES = {
    "html": b"<html><body><h1>502 Bad Gateway</h1></body></html>",
    "notsoap": b'<?xml version="1.0"?><status><ok>yes</ok></status>',
    "truncated": b'<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv='
                 b'"http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>'
                 b'<RetrieveServiceContentResponse xmlns="urn:vim25"><returnval><rootFolder',
}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self):
        print("request", file=sys.stderr, flush=True)  # the test counts them
        if MODE == "hang":
            time.sleep(3600)
        body = BODIES["truncated" if MODE == "cut" else MODE]
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        # A cut reply promises more than it sends, then hangs up.
        length = len(body) + (500 if MODE == "cut" else 0)
        self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        if MODE == "cut":
            self.close_connection = True

    def do_GET(self):
        self.reply()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.reply()

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(CERT, KEY)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
