#pragma once

#include "wire/jobmessage.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableView;

namespace ddl {
class ApiClient;
}

namespace ddl::desktop {

class ArtifactBrowser;
class FailureSummary;
class JobUtilisationView;
class LogView;
class MetricChartsView;
class MetricCollector;
class MetricStore;
class StateTimeline;
class TaskModel;

// One job: its state and timeline, its checkpoints, its tasks, live logs, metric charts,
// utilisation graphs and artifacts, with the actions cancel, clone and download. Polls the job while it is not finished.
class JobDetailView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int PollMs = 1500;

    JobDetailView(ApiClient *client, const QString &uuid, QWidget *parent = nullptr);

    // The job's "checkpoints" (GET /v1/jobs/<uuid>) as lines for the header; empty for none.
    static QString checkpointText(const QJsonArray &checkpoints);

    QString uuid() const { return m_uuid; }
    // Empty until the job was first read.
    QString state() const { return m_job ? stateName(m_job->state) : QString(); }
    TaskModel *tasks() const { return m_tasks; }
    LogView *logView() const { return m_logView; }
    MetricStore *metrics() const { return m_metrics; }
    MetricChartsView *charts() const { return m_charts; }
    JobUtilisationView *utilisation() const { return m_utilisation; }
    QTabWidget *tabs() const { return m_tabs; }
    ArtifactBrowser *artifacts() const { return m_artifacts; }
    StateTimeline *timeline() const { return m_timeline; }
    FailureSummary *failure() const { return m_failure; }
    // Asks the server for the job now (F5), not at the next poll.
    void refresh() { poll(); }

signals:
    // An answer about the job was read (every poll, F5, cancel).
    void jobLoaded();
    void stateChanged(const QString &uuid, const QString &state);
    void cloneRequested(const QJsonObject &spec);
    void titleChanged(const QString &title);
    void failed(const QString &message);
    // A request was refused for the session (expired): the session refreshes or asks to log in.
    void authFailed();

private:
    void poll();
    void handleJob(const QJsonObject &answer);
    // Asks, naming the job, then stops it.
    void cancelJob();
    void stopJob();
    void startMetrics(qint64 taskId);

    QPointer<ApiClient> m_client;
    QString m_uuid;
    std::optional<JobMessage> m_job;
    QLabel *m_titleLabel;
    QLabel *m_stateLabel;
    QLabel *m_timelineLabel;
    StateTimeline *m_timeline;
    QLabel *m_reasonLabel;
    QLabel *m_checkpointLabel;
    QPushButton *m_cancelButton;
    QPushButton *m_cloneButton;
    TaskModel *m_tasks;
    QTableView *m_taskTable;
    QTabWidget *m_tabs;
    LogView *m_logView;
    MetricStore *m_metrics;
    MetricChartsView *m_charts;
    JobUtilisationView *m_utilisation;
    ArtifactBrowser *m_artifacts;
    QPlainTextEdit *m_config;
    FailureSummary *m_failure;
    MetricCollector *m_collector = nullptr;
    QTimer m_pollTimer;
    bool m_polling = false;
};

} // namespace ddl::desktop
