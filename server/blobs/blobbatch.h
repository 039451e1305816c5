#pragma once

#include "blobstorage.h"

#include <QByteArray>
#include <QHash>
#include <QSet>
#include <QList>
#include <QString>

namespace ddl::server {

// One request carrying many small blobs (POST /v1/blobs/batch): a dataset of 10,000 small files
// is a few requests instead of 10,000 resumable uploads of three round trips and an fsync each.
// The body is, for each blob, the line "<sha256 hex> <size>\n" and then its bytes.
class BlobBatch
{
public:
    static constexpr qint64 MaxBlobBytes = 1024 * 1024; // larger files use the resumable upload
    static constexpr int MaxBlobs = 2000; // what a client sends at most (BlobBatchUpload)

    struct Entry
    {
        QString sha256;
        qint64 offset = 0; // of its bytes in the body
        qint64 size = 0;
    };

    // Where a batch's new blobs went: one pack, each blob at its offset there.
    struct Packed
    {
        QString pack; // empty when the batch brought nothing new
        QHash<QString, qint64> offsets; // by digest
        // Recorded before but their bytes were gone (a pack or file lost): their rows move here.
        QSet<QString> repairs;
    };

    // Splits and checks a body: well formed, each blob within MaxBlobBytes, at most MaxBlobs.
    static Result<QList<Entry>> parse(const QByteArray &body);
    // Off the event loop: checks every blob's digest, then appends those not held (recorded
    // and present) to one new pack, synced once with its folder entry. A recorded blob whose
    // bytes are gone is written again and marked a repair. A wrong
    // digest stores none of them; a failure leaves no pack. The caller records the locations;
    // a crash before it does leaves an unreferenced pack, which nothing reads.
    static Result<Packed> store(const BlobStorage &storage, const QByteArray &body,
                                const QList<Entry> &entries,
                                const QHash<QString, QString> &recorded);
    // Batches of servers before packs wrote part files ending in this; a crash could leave
    // them, and the server removes them at start.
    static constexpr auto PartSuffix = "-batch";
    static void sweepParts(const BlobStorage &storage);
};

} // namespace ddl::server
