#include "bloblocator.h"

#include "core/sha256.h"
#include "store/sql.h"
#include "store/sqlliteral.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ddl::server {

BlobLocator::BlobLocator(const QSqlDatabase &db, const BlobStorage &storage)
    : m_db(db)
    , m_storage(storage)
{}

bool BlobLocator::isPackName(const QString &name)
{
    static const QRegularExpression pattern(u"^[0-9a-f]{32}\\.pack$"_s);
    return pattern.match(name).hasMatch();
}

std::optional<BlobLocation> BlobLocator::locate(const QString &sha256) const
{
    Result<QSqlQuery> row = runSql(m_db,
                                   u"SELECT size, pack, pack_offset FROM blobs WHERE sha256 = ?"_s,
                                   {sha256});
    if (row && row->next() && !row->value(1).isNull()) {
        const QString pack = row->value(1).toString();
        if (!isPackName(pack))
            return std::nullopt;
        // A lost pack (a restore out of step) is no place: the blob may since have come again
        // as a file of its own through /v1/uploads.
        if (m_storage.hasPack(pack))
            return BlobLocation{m_storage.packPath(pack), row->value(2).toLongLong(),
                                row->value(0).toLongLong()};
    }
    // A blob of its own (an upload's, or a batch's from before packs).
    const QFileInfo file(m_storage.blobPath(sha256));
    if (!file.isFile())
        return std::nullopt;
    return BlobLocation{file.filePath(), 0, file.size()};
}

Result<QByteArray> BlobLocator::read(const QString &sha256, qint64 maxBytes) const
{
    const std::optional<BlobLocation> location = locate(sha256);
    if (!location)
        return Error::make(ErrorCode::NotFound, u"no blob %1 on this server"_s.arg(sha256));
    QFile file(location->path);
    if (!file.open(QIODevice::ReadOnly) || !file.seek(location->offset)) {
        return Error::make(ErrorCode::IoError,
                           u"cannot read %1: %2"_s.arg(file.fileName(), file.errorString()));
    }
    const qint64 wanted = std::min(location->length, maxBytes);
    QByteArray bytes = file.read(wanted);
    if (bytes.size() != wanted) {
        return Error::make(ErrorCode::IoError, u"%1 ends before blob %2 does"_s.arg(
                                                   file.fileName(), sha256));
    }
    return bytes;
}

Result<QHash<QString, QString>> BlobLocator::recorded(const QStringList &digests) const
{
    // The digests are written into the statement (sqlliteral): bound, they cost time that grows
    // with the square of their count.
    constexpr qsizetype PerStatement = 500;
    QHash<QString, QString> held;
    for (qsizetype first = 0; first < digests.size(); first += PerStatement) {
        const QStringList part = digests.mid(first, PerStatement);
        const std::optional<QString> some = sqlliteral::digestList(part);
        if (!some) {
            const auto bad = std::find_if_not(part.cbegin(), part.cend(),
                                              [](const QString &d) { return isSha256Hex(d); });
            return Error::make(ErrorCode::BadRequest,
                               QStringLiteral("%1 is not a SHA-256 digest (64 lowercase hex "
                                              "digits)")
                                   .arg(bad == part.cend() ? QString() : bad->left(80)),
                               QStringLiteral("sha256"));
        }
        Result<QSqlQuery> rows =
            runSql(m_db, u"SELECT sha256, pack FROM blobs WHERE sha256 IN (%1)"_s.arg(*some));
        if (!rows)
            return rows.error();
        while (rows->next())
            held.insert(rows->value(0).toString(), rows->value(1).toString());
    }
    return held;
}

QSet<QString> BlobLocator::present(const BlobStorage &storage,
                                   const QHash<QString, QString> &recorded)
{
    QHash<QString, bool> packs; // many blobs share a pack: look at each once
    QSet<QString> held;
    for (auto it = recorded.cbegin(); it != recorded.cend(); ++it) {
        const QString &pack = it.value();
        bool there = false;
        if (pack.isEmpty()) {
            there = storage.hasFile(it.key());
        } else {
            auto known = packs.constFind(pack);
            if (known == packs.cend())
                known = packs.insert(pack, isPackName(pack) && storage.hasPack(pack));
            there = *known;
        }
        if (there)
            held.insert(it.key());
    }
    return held;
}

} // namespace ddl::server
