#include "crashworkload.h"

#include <QJsonArray>
#include <QJsonDocument>
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
    m_process->setProcessEnvironment(m_cluster.cliEnvironment(m_user));
    m_process->setWorkingDirectory(m_repo);
    QObject::connect(m_process.get(), &QProcess::finished, [this] { handleFinished(); });
    m_process->start(ClusterHarness::binary(u"ddlcli"_s), {u"submit"_s, option + config});
}

void SubmissionStream::handleFinished()
{
    const QString out = QString::fromUtf8(m_process->readAllStandardOutput());
    const QString err = QString::fromUtf8(m_process->readAllStandardError());
    const QString uuid = jobUuidOf(out);
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
