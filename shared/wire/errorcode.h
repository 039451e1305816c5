#pragma once

#include <QString>

#include <optional>

namespace ddl {

struct Error;

// Every machine code an Error carries (docs/api.md), listed once: its wire spelling is the name in
// snake_case (BadRequest is "bad_request"). The server sends some of them on the wire; the rest
// name what failed on the client or worker side.
#define DDL_ERROR_CODES(X) \
    X(Aborted) X(ArchiveTooLarge) X(BadAnswer) X(BadCaCert) X(BadManifest) X(BadRequest) \
    X(BareRepository) X(CertificateChanged) X(ChunkCorrupted) X(ChunkPending) X(Conflict) \
    X(ContainerUnavailable) X(CorruptArchive) X(DestinationNotEmpty) X(DigestMismatch) \
    X(DirtyTree) X(EmptyRepository) X(Forbidden) X(GitError) X(HeadersTooLarge) X(Internal) \
    X(InvalidArgument) X(InvalidConfig) X(InvalidIdentity) X(InvalidImage) X(InvalidLease) \
    X(InvalidSize) X(InvalidSpec) X(IoError) X(LengthRequired) X(ListenFailed) X(MethodNotAllowed) \
    X(NameInUse) X(Network) X(NoInput) X(NoMainFunction) X(NoMainPy) X(NoPort) X(NoServer) \
    X(NoToken) X(NotAFile) X(NotARepository) X(NotCommitted) X(NotFound) X(NotLoggedIn) \
    X(OffsetMismatch) X(OutsideWorkTree) X(PayloadTooLarge) X(RangeNotSatisfiable) X(RateLimited) \
    X(SandboxUnavailable) X(SchemaTooNew) X(SessionExpired) X(Timeout) X(TlsError) X(Unauthorized) \
    X(Unreachable) X(UnsafeArchive) X(UnsafePath) X(Unschedulable) X(UntrustedCertificate) \
    X(Usage) X(VenvFailed)

enum class ErrorCode {
#define DDL_ERROR_CODE_ENUMERATOR(name) name,
    DDL_ERROR_CODES(DDL_ERROR_CODE_ENUMERATOR)
#undef DDL_ERROR_CODE_ENUMERATOR
};

// The wire spelling: "bad_request", "not_found", ...
QString codeName(ErrorCode code);
// Reads a spelling, and the synonyms that older versions sent ("bad_config" for
// invalid_config, "certificate_mismatch" for certificate_changed, "bad_response" for
// bad_answer); std::nullopt for anything else (an "http_503" from a proxy, a newer server's code).
std::optional<ErrorCode> parseErrorCode(QStringView name);

// The server could not be reached, or failed on its side: worth another try later.
bool isTransient(const Error &error);
// The credentials were refused or ran out: log in (or enroll) again.
bool isUnauthorized(const Error &error);

} // namespace ddl
