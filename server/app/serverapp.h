#pragma once

#include "serverconfig.h"

#include <QHttpServer>
#include <QObject>
#include <QTimer>
#include <memory>

namespace ddl::server {

struct ServerContext;
class AuthController;
class JobController;
class UploadController;
class WorkerController;
class DatasetController;
class DataRouter;
class FrontServer;

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
    std::unique_ptr<ServerContext> m_context;
    QHttpServer m_http;
    std::unique_ptr<DataRouter> m_dataRouter;
    std::unique_ptr<FrontServer> m_front;
    std::unique_ptr<AuthController> m_authController;
    std::unique_ptr<JobController> m_jobController;
    std::unique_ptr<UploadController> m_uploadController;
    std::unique_ptr<WorkerController> m_workerController;
    std::unique_ptr<DatasetController> m_datasetController;
    QTimer m_housekeeping;
    int m_housekeepingRounds = 0;
};

} // namespace ddl::server
