"""A small client of DDL's REST API (docs/api.md) over HTTPS, with the standard library only."""
import hashlib
import http.client
import json
import os
import ssl
import urllib.parse

CHUNK = 8 * 1024 * 1024


class DdlError(Exception):
    """A request DDL refused or could not answer: the server's message, code and field."""

    def __init__(self, message, code="", field=""):
        super().__init__(message)
        self.message = message
        self.code = code
        self.field = field


class Client:
    """One HTTPS connection to a DDL server, signed in as one user."""

    def __init__(self, server, ca_cert=None, timeout=60):
        url = urllib.parse.urlsplit(server)
        if url.scheme != "https" or not url.hostname:
            raise DdlError(f"server {server!r} is not an https://HOST:PORT address; DDL servers "
                           "speak HTTPS only", "usage", "server")
        context = ssl.create_default_context()
        if ca_cert:
            if not os.path.isfile(ca_cert):
                raise DdlError(f"the CA certificate file {ca_cert} does not exist", "bad_ca_cert",
                               "ca_cert")
            context = ssl.create_default_context(cafile=ca_cert)
        self._server = server
        self._connection = http.client.HTTPSConnection(url.hostname, url.port or 443,
                                                       timeout=timeout, context=context)
        self._token = None

    def close(self):
        self._connection.close()

    def request(self, method, path, body=None, raw=None, query=None):
        """The answer's JSON; a DdlError with the server's error for any status >= 400."""
        if query:
            path += "?" + urllib.parse.urlencode(query)
        headers = {}
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        elif raw is not None:
            headers["Content-Type"] = "application/octet-stream"
        headers["Content-Length"] = str(len(data) if data is not None else 0)
        try:
            self._connection.request(method, path, body=data, headers=headers)
            response = self._connection.getresponse()
            payload = response.read()
        except ssl.SSLCertVerificationError as error:
            self._connection.close()
            raise DdlError(f"the certificate of {self._server} is not trusted ({error.reason}); "
                           "pass ca_cert= the server's certificate file (its data dir's "
                           "tls/server.crt)", "untrusted_certificate", "ca_cert") from None
        except (OSError, http.client.HTTPException) as error:
            self._connection.close()
            raise DdlError(f"cannot reach {self._server}: {error}", "unreachable",
                           "server") from None
        try:
            answer = json.loads(payload) if payload else {}
        except ValueError:
            answer = {}
        if response.status >= 400:
            problem = answer.get("error", {}) if isinstance(answer, dict) else {}
            raise DdlError(problem.get("message") or f"{method} {path} answered {response.status}",
                           problem.get("code", f"http_{response.status}"),
                           problem.get("field", ""))
        return answer

    def login(self, email, password):
        answer = self.request("POST", "/v1/auth/login", {"email": email, "password": password})
        self._token = answer["access_token"]

    def upload(self, data):
        """Puts bytes on the server as a blob (nothing is sent when it has them); their sha256."""
        sha256 = hashlib.sha256(data).hexdigest()
        upload = self.request("POST", "/v1/uploads", {"size": len(data), "sha256": sha256})
        offset = upload["offset"]
        while not upload.get("complete"):
            upload = self.request("PUT", f"/v1/uploads/{upload['id']}",
                                  raw=data[offset:offset + CHUNK], query={"offset": offset})
            offset = upload["offset"]
        return sha256

    def upload_file(self, path):
        with open(path, "rb") as f:
            return self.upload(f.read())
