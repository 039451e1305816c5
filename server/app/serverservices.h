#pragma once

#include "auth/authservice.h"
#include "auth/loginthrottle.h"
#include "blobs/blobstorage.h"
#include "blobs/uploadservice.h"
#include "datasets/datasetservice.h"
#include "images/imageservice.h"
#include "jobs/checkpointservice.h"
#include "jobs/joboutputs.h"
#include "jobs/jobprogress.h"
#include "jobs/jobservice.h"
#include "logs/logstorage.h"
#include "scheduler/scheduler.h"
#include "workers/canaryservice.h"
#include "workers/ledgerstore.h"
#include "workers/utilisationservice.h"
#include "workers/workerservice.h"

namespace ddl::server {

// The services of one running server, built once over one store connection, in the order they
// depend on each other. ServerApp owns them and hands each controller only the ones it uses.
struct ServerServices
{
    ServerServices(const QSqlDatabase &db,
                   const QString &dataDir,
                   qint64 maxBlobBytes,
                   const UtilisationLimits &utilisationLimits = {})
        : db(db)
        , blobs(dataDir)
        , logs(dataDir)
        , auth(db)
        , uploads(db, blobs, maxBlobBytes)
        , datasets(db, blobs, uploads)
        , images(db, blobs, datasets)
        , scheduler(db)
        , progress(db, scheduler)
        , jobs(db, uploads, datasets, images, scheduler)
        , outputs(db)
        , workers(db, uploads, progress, scheduler)
        , utilisation(db, utilisationLimits)
        , ledger(db)
        , checkpoints(db, datasets)
        , canaries(db, blobs, scheduler)
    {}

    QSqlDatabase db;
    BlobStorage blobs;
    LogStorage logs;
    AuthService auth;
    LoginThrottle throttle;
    UploadService uploads;
    DatasetService datasets;
    ImageService images;
    Scheduler scheduler;
    JobProgress progress;
    JobService jobs;
    JobOutputs outputs;
    WorkerService workers;
    UtilisationService utilisation;
    LedgerStore ledger;
    CheckpointService checkpoints;
    CanaryService canaries;
};

} // namespace ddl::server
