#pragma once

#include "clusterharness.h"
#include "polluntil.h"

#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QSet>
#include <QString>
#include <functional>
#include <memory>

// ddlcli submissions that run as processes while a test kills the server or the worker: each
// submission has a job name of its own, so that after the crashes a job that exists twice, or
// a 201 whose job is gone, shows by name. Records what each submission's ddlcli said.
class SubmissionStream
{
public:
    // jobFile(name) writes the job config for a submission of that name and returns
    // {config path, ddlcli's option for it} (e.g. "--job_config=").
    using ConfigWriter = std::function<std::pair<QString, QString>(const QString &name)>;

    SubmissionStream(ClusterHarness &cluster, const QString &user, const QString &repo,
                     const QString &prefix, ConfigWriter writeConfig);

    // Starts the next submission when none runs; false once stop() was called.
    void kick();
    bool running() const { return m_process && m_process->state() != QProcess::NotRunning; }
    void stop() { m_stopped = true; }
    // Called when a submission ended: whether the server answered 201 (accepted).
    std::function<void(bool accepted)> onFinished;

    // name -> uuid of every submission that printed its job_uuid (the server answered 201)
    const QMap<QString, QString> &accepted() const { return m_accepted; }
    // names of submissions whose ddlcli failed: the server may or may not have the job
    const QSet<QString> &uncertain() const { return m_uncertain; }
    QString lastFailure() const { return m_lastFailure; }

private:
    void handleFinished();

    ClusterHarness &m_cluster;
    QString m_user;
    QString m_repo;
    QString m_prefix;
    ConfigWriter m_writeConfig;
    std::unique_ptr<QProcess> m_process;
    QString m_name;
    int m_next = 0;
    bool m_stopped = false;
    QMap<QString, QString> m_accepted;
    QSet<QString> m_uncertain;
    QString m_lastFailure;
};

// The jobs of user as `ddlcli list --output=json` shows them (newest first), or an empty list
// with a warning.
QList<QJsonObject> listJobs(ClusterHarness &cluster, const QString &user);
