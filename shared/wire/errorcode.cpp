#include "errorcode.h"

#include "core/error.h"

#include <iterator>

using namespace Qt::StringLiterals;

namespace ddl {

namespace {

struct Spelling
{
    ErrorCode code;
    QStringView name;
};

// In the order of the enum, so that a code is its own index.
constexpr Spelling Spellings[] = {
    {ErrorCode::Aborted, u"aborted"},
    {ErrorCode::ArchiveTooLarge, u"archive_too_large"},
    {ErrorCode::BadAnswer, u"bad_answer"},
    {ErrorCode::BadCaCert, u"bad_ca_cert"},
    {ErrorCode::BadManifest, u"bad_manifest"},
    {ErrorCode::BadRequest, u"bad_request"},
    {ErrorCode::BareRepository, u"bare_repository"},
    {ErrorCode::CertificateChanged, u"certificate_changed"},
    {ErrorCode::ChunkCorrupted, u"chunk_corrupted"},
    {ErrorCode::ChunkPending, u"chunk_pending"},
    {ErrorCode::Conflict, u"conflict"},
    {ErrorCode::ContainerUnavailable, u"container_unavailable"},
    {ErrorCode::CorruptArchive, u"corrupt_archive"},
    {ErrorCode::DestinationNotEmpty, u"destination_not_empty"},
    {ErrorCode::DigestMismatch, u"digest_mismatch"},
    {ErrorCode::DirtyTree, u"dirty_tree"},
    {ErrorCode::EmptyRepository, u"empty_repository"},
    {ErrorCode::Forbidden, u"forbidden"},
    {ErrorCode::GitError, u"git_error"},
    {ErrorCode::HeadersTooLarge, u"headers_too_large"},
    {ErrorCode::Internal, u"internal"},
    {ErrorCode::InvalidArgument, u"invalid_argument"},
    {ErrorCode::InvalidConfig, u"invalid_config"},
    {ErrorCode::InvalidIdentity, u"invalid_identity"},
    {ErrorCode::InvalidImage, u"invalid_image"},
    {ErrorCode::InvalidLease, u"invalid_lease"},
    {ErrorCode::InvalidSize, u"invalid_size"},
    {ErrorCode::InvalidSpec, u"invalid_spec"},
    {ErrorCode::IoError, u"io_error"},
    {ErrorCode::LengthRequired, u"length_required"},
    {ErrorCode::ListenFailed, u"listen_failed"},
    {ErrorCode::MethodNotAllowed, u"method_not_allowed"},
    {ErrorCode::NameInUse, u"name_in_use"},
    {ErrorCode::Network, u"network"},
    {ErrorCode::NoInput, u"no_input"},
    {ErrorCode::NoMainFunction, u"no_main_function"},
    {ErrorCode::NoMainPy, u"no_main_py"},
    {ErrorCode::NoPort, u"no_port"},
    {ErrorCode::NoServer, u"no_server"},
    {ErrorCode::NoToken, u"no_token"},
    {ErrorCode::NotAFile, u"not_a_file"},
    {ErrorCode::NotARepository, u"not_a_repository"},
    {ErrorCode::NotCommitted, u"not_committed"},
    {ErrorCode::NotFound, u"not_found"},
    {ErrorCode::NotLoggedIn, u"not_logged_in"},
    {ErrorCode::OffsetMismatch, u"offset_mismatch"},
    {ErrorCode::OutsideWorkTree, u"outside_work_tree"},
    {ErrorCode::PayloadTooLarge, u"payload_too_large"},
    {ErrorCode::RangeNotSatisfiable, u"range_not_satisfiable"},
    {ErrorCode::RateLimited, u"rate_limited"},
    {ErrorCode::SandboxUnavailable, u"sandbox_unavailable"},
    {ErrorCode::SchemaTooNew, u"schema_too_new"},
    {ErrorCode::SessionExpired, u"session_expired"},
    {ErrorCode::Timeout, u"timeout"},
    {ErrorCode::TlsError, u"tls_error"},
    {ErrorCode::Unauthorized, u"unauthorized"},
    {ErrorCode::Unreachable, u"unreachable"},
    {ErrorCode::UnsafeArchive, u"unsafe_archive"},
    {ErrorCode::UnsafePath, u"unsafe_path"},
    {ErrorCode::Unschedulable, u"unschedulable"},
    {ErrorCode::UntrustedCertificate, u"untrusted_certificate"},
    {ErrorCode::Usage, u"usage"},
    {ErrorCode::VenvFailed, u"venv_failed"},
};

// Spellings older versions used for the same thing.
constexpr Spelling Synonyms[] = {
    {ErrorCode::InvalidConfig, u"bad_config"},
    {ErrorCode::CertificateChanged, u"certificate_mismatch"},
    {ErrorCode::BadAnswer, u"bad_response"},
};

} // namespace

QString codeName(ErrorCode code)
{
    static_assert(std::size(Spellings) == std::size_t(ErrorCode::VenvFailed) + 1);
    return Spellings[std::size_t(code)].name.toString();
}

std::optional<ErrorCode> parseErrorCode(QStringView name)
{
    for (const Spelling &spelling : Spellings) {
        if (spelling.name == name)
            return spelling.code;
    }
    for (const Spelling &synonym : Synonyms) {
        if (synonym.name == name)
            return synonym.code;
    }
    return std::nullopt;
}

bool isTransient(const Error &error)
{
    return error.is(ErrorCode::Unreachable) || error.is(ErrorCode::Timeout) ||
           error.is(ErrorCode::Network) || error.is(ErrorCode::Internal) ||
           error.code.startsWith(u"http_5");
}

bool isUnauthorized(const Error &error)
{
    return error.is(ErrorCode::Unauthorized) || error.is(ErrorCode::SessionExpired) ||
           error.code == u"http_401";
}

} // namespace ddl
