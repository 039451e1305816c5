#pragma once

#include <QString>

#include <optional>

namespace ddl {

struct Error;

// Every machine code an Error carries (docs/api.md), one spelling each. The server sends some of
// them on the wire; the rest name what failed on the client or worker side.
enum class ErrorCode {
    Aborted,
    ArchiveTooLarge,
    BadAnswer,
    BadCaCert,
    BadManifest,
    BadRequest,
    BareRepository,
    CertificateChanged,
    ChunkCorrupted,
    ChunkPending,
    Conflict,
    ContainerUnavailable,
    CorruptArchive,
    DestinationNotEmpty,
    DigestMismatch,
    DirtyTree,
    EmptyRepository,
    Forbidden,
    GitError,
    HeadersTooLarge,
    Internal,
    InvalidArgument,
    InvalidConfig,
    InvalidIdentity,
    InvalidImage,
    InvalidLease,
    InvalidSize,
    InvalidSpec,
    IoError,
    LengthRequired,
    ListenFailed,
    MethodNotAllowed,
    NameInUse,
    Network,
    NoInput,
    NoMainFunction,
    NoMainPy,
    NoPort,
    NoServer,
    NoToken,
    NotAFile,
    NotARepository,
    NotCommitted,
    NotFound,
    NotLoggedIn,
    OffsetMismatch,
    OutsideWorkTree,
    PayloadTooLarge,
    RangeNotSatisfiable,
    RateLimited,
    SandboxUnavailable,
    SchemaTooNew,
    SessionExpired,
    Timeout,
    TlsError,
    Unauthorized,
    Unreachable,
    UnsafeArchive,
    UnsafePath,
    Unschedulable,
    UntrustedCertificate,
    Usage,
    VenvFailed,
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
