#pragma once

#include "blobstorage.h"

#include <QByteArray>
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

    // Splits and checks a body: well formed, each blob within MaxBlobBytes, at most MaxBlobs.
    static Result<QList<Entry>> parse(const QByteArray &body);
    // Off the event loop: checks every blob's digest, then writes those storage lacks, with one
    // filesystem sync for the whole batch before any appears under its digest. A wrong digest
    // stores none of them; after a failure on the disk some may be in place, unrecorded (no
    // caller owns them yet), and sending the batch again is always safe.
    // The part files of a batch end in this; a crash between writing and renaming leaves them,
    // and the server removes them at start (sweepParts).
    static constexpr auto PartSuffix = "-batch";
    static void sweepParts(const BlobStorage &storage);
    static Status store(const BlobStorage &storage, const QByteArray &body,
                        const QList<Entry> &entries);
};

} // namespace ddl::server
