#pragma once

#include "serverconfig.h"

#include <QObject>
#include <QTimer>
#include <memory>

namespace ddl::server {

struct ServerServices;
class AuthController;
class BlobController;
class CheckpointController;
class DatasetController;
class ImageController;
class FrontServer;
class JobController;
class LedgerController;
class Leadership;
class Router;
class UploadController;
class WorkerController;

// One running ddl-server: the store, the services, the HTTPS listener and the housekeeping
// timers. main() builds it from a ServerConfig and calls start().
class ServerApp : public QObject
{
    Q_OBJECT
public:
    explicit ServerApp(const ServerConfig &config, QObject *parent = nullptr);
    ~ServerApp() override;

    Status start();
    quint16 port() const;

private:
    void registerRoutes();
    void handleHousekeeping();

    ServerConfig m_config;
    std::unique_ptr<ServerServices> m_services;
    std::unique_ptr<Leadership> m_leadership; // only on PostgreSQL
    std::unique_ptr<Router> m_router;
    std::unique_ptr<AuthController> m_authController;
    std::unique_ptr<JobController> m_jobController;
    std::unique_ptr<UploadController> m_uploadController;
    std::unique_ptr<BlobController> m_blobController;
    std::unique_ptr<WorkerController> m_workerController;
    std::unique_ptr<LedgerController> m_ledgerController;
    std::unique_ptr<DatasetController> m_datasetController;
    std::unique_ptr<ImageController> m_imageController;
    std::unique_ptr<CheckpointController> m_checkpointController;
    // Last: its connections, and the requests on them, go before what they call.
    std::unique_ptr<FrontServer> m_front;
    QTimer m_housekeeping;
    int m_housekeepingRounds = 0;
};

} // namespace ddl::server
