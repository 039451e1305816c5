#include "errorcode.h"

#include "core/error.h"

#include <QList>

using namespace Qt::StringLiterals;

namespace ddl {

namespace {

struct Spelling
{
    ErrorCode code;
    QStringView name;
};

// The enumerators' names, in the order of the enum, so that a code is its own index.
constexpr QStringView EnumeratorNames[] = {
#define DDL_ERROR_CODE_NAME(name) u"" #name,
    DDL_ERROR_CODES(DDL_ERROR_CODE_NAME)
#undef DDL_ERROR_CODE_NAME
};

// "ArchiveTooLarge" -> "archive_too_large"
QString snakeCase(QStringView name)
{
    QString spelling;
    for (const QChar c : name) {
        if (c.isUpper() && !spelling.isEmpty())
            spelling += u'_';
        spelling += c.toLower();
    }
    return spelling;
}

const QList<QString> &spellings()
{
    static const QList<QString> all = [] {
        QList<QString> names;
        for (const QStringView name : EnumeratorNames)
            names.append(snakeCase(name));
        return names;
    }();
    return all;
}

// Spellings older versions used for the same thing.
constexpr Spelling Synonyms[] = {
    {ErrorCode::InvalidConfig, u"bad_config"},
    {ErrorCode::CertificateChanged, u"certificate_mismatch"},
    {ErrorCode::BadAnswer, u"bad_response"},
};

} // namespace

QString codeName(ErrorCode code)
{
    return spellings().at(qsizetype(code));
}

std::optional<ErrorCode> parseErrorCode(QStringView name)
{
    if (const qsizetype index = spellings().indexOf(name); index >= 0)
        return ErrorCode(index);
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
