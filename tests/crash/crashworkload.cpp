#include "crashworkload.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::StringLiterals;

SubmissionStream::SubmissionStream(ClusterHarness &cluster, const QString &user,
                                   const QString &repo, const QString &prefix,
                                   ConfigWriter writeConfig)
    : m_cluster(cluster)
    , m_user(user)
    , m_repo(repo)
    , m_prefix(prefix)
    , m_writeConfig(std::move(writeConfig))
{
}

void SubmissionStream::kick()
{
    if (m_stopped || running())
        return;
    m_name = u"%1-%2"_s.arg(m_prefix).arg(m_next++);
    const auto [config, option] = m_writeConfig(m_name);
    // kick() may run from the old process's finished signal: it goes once that has returned.
    if (m_process)
        m_process.release()->deleteLater();
    m_process = std::make_unique<QProcess>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"DDL_SERVER"_s, m_cluster.serverUrl());
    env.insert(u"DDL_CA_CERT"_s, m_cluster.caCert());
    env.insert(u"XDG_CONFIG_HOME"_s, m_cluster.path(u"users/"_s + m_user));
    env.insert(u"HOME"_s, m_cluster.path(u"users/"_s + m_user));
    m_process->setProcessEnvironment(env);
    m_process->setWorkingDirectory(m_repo);
    QObject::connect(m_process.get(), &QProcess::finished, [this] { handleFinished(); });
    m_process->start(ClusterHarness::binary(u"ddlcli"_s), {u"submit"_s, option + config});
}

void SubmissionStream::handleFinished()
{
    static const QRegularExpression uuidLine(u"^job_uuid: (\\S+)$"_s,
                                             QRegularExpression::MultilineOption);
    const QString out = QString::fromUtf8(m_process->readAllStandardOutput());
    const QString err = QString::fromUtf8(m_process->readAllStandardError());
    const QString uuid = uuidLine.match(out).captured(1);
    const bool accepted = m_process->exitStatus() == QProcess::NormalExit
                          && m_process->exitCode() == 0 && !uuid.isEmpty();
    if (accepted) {
        m_accepted.insert(m_name, uuid);
    } else {
        m_uncertain.insert(m_name);
        m_lastFailure = m_name + u": "_s + out.right(300) + err.right(600);
    }
    if (onFinished)
        onFinished(accepted);
}

bool pollUntil(const std::function<bool()> &done, int timeoutMs, int stepMs)
{
    QElapsedTimer timer;
    timer.start();
    while (true) {
        if (done())
            return true;
        if (timer.elapsed() >= timeoutMs)
            return false;
        QTest::qWait(stepMs);
    }
}

QList<QJsonObject> listJobs(ClusterHarness &cluster, const QString &user)
{
    const CliRun run = cluster.cli(user, {u"list"_s, u"--limit=1000"_s, u"--output=json"_s});
    QList<QJsonObject> jobs;
    if (run.exitCode != 0) {
        qWarning("ddlcli list failed: %s %s", qUtf8Printable(run.out), qUtf8Printable(run.err));
        return jobs;
    }
    for (const QJsonValue &job :
         QJsonDocument::fromJson(run.out.toUtf8()).object().value(u"jobs"_s).toArray())
        jobs << job.toObject();
    return jobs;
}

QJsonObject jobDetail(ClusterHarness &cluster, const QString &user, const QString &uuid)
{
    const CliRun run = cluster.cli(user, {u"progress"_s, u"--job_uuid="_s + uuid,
                                          u"--output=json"_s});
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

bool isFinalState(const QString &state)
{
    return state == u"SUCCEEDED"_s || state == u"FAILED"_s || state == u"STOPPED"_s;
}
