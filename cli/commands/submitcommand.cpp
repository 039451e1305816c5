#include "submitcommand.h"

#include "api/blobupload.h"
#include "clicontext.h"
#include "console.h"
#include "datasetcommand.h"
#include "jobspec/jobspecparser.h"
#include "jobspec/projectconfig.h"
#include "progressbar.h"
#include "projectfolder.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonValue>
#include <QTemporaryDir>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString SubmitCommand::summary() const
{
    return tr("package the code at HEAD and the dataset, upload them and start a job");
}

QList<OptionSpec> SubmitCommand::options() const
{
    return {
        {u"task_config"_s,
         u"FILE"_s,
         tr("a DDL task.yaml, anywhere (default: ./task.yaml); run ddlcli in the folder that "
            "holds main.py: it and its subfolders are sent as last committed"),
         {},
         false},
        {u"job_config"_s, u"FILE"_s, tr("an OpenPAI job (v1 JSON or v2 YAML)"), {}, false},
        {u"priority"_s,
         u"N"_s,
         tr("-100 to 100 (default 0): higher runs first; between users, fair share decides"),
         {},
         false},
        {u"allow-unschedulable"_s,
         {},
         tr("queue the job even when no registered worker is big enough for it"),
         {},
         false},
        outputOption()};
}

QString SubmitCommand::localDataFolder(const QString &dataDir, const QString &baseFolder)
{
    if (dataDir.isEmpty() || dataDir.contains(u"://"_s))
        return {};
    const QFileInfo info(QDir(baseFolder), dataDir);
    return info.isDir() ? info.absoluteFilePath() : QString();
}

namespace {
// What goes to the server besides the spec.
struct Payload
{
    std::optional<PackageInfo> package;
    QString datasetManifest;
};
} // namespace

static Error specError(const QString &path, const QList<SpecError> &errors)
{
    QStringList lines;
    for (const SpecError &error : errors)
        lines << u"  "_s + error.toString();
    return Error::make(ErrorCode::InvalidSpec,
                       SubmitCommand::tr("%1 is not a valid job:\n%2").arg(path, lines.join(u'\n')),
                       errors.isEmpty() ? QString() : errors.first().field);
}

// Bytes below folder (for .git: never sent, but the reason a repository looks big).
static qint64 folderBytes(const QString &folder)
{
    qint64 bytes = 0;
    QDirIterator it(
        folder, QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        bytes += it.fileInfo().size();
    }
    return bytes;
}

// Before anything is sent: what the package holds, the files that make it big, and what to do
// about a big committed file. Only the tree of HEAD is packaged, never .git.
void SubmitCommand::printPreflight(Console &console,
                                   const PackageInfo &package,
                                   const QString &rootPath)
{
    const qint64 gitBytes = folderBytes(QDir(rootPath).filePath(u".git"_s));
    console.printStatus(tr("Packaged commit %1: %2 files, %3 (%4 compressed); the repository's "
                           ".git (%5) is not sent")
                            .arg(package.commitId.left(12))
                            .arg(package.fileCount)
                            .arg(Output::humanSize(package.contentBytes),
                                 Output::humanSize(package.size),
                                 Output::humanSize(gitBytes)) +
                        u'\n');
    QStringList largest;
    for (const auto &[path, bytes] : package.largestFiles.mid(0, 3))
        largest << u"%1 (%2)"_s.arg(path, Output::humanSize(bytes));
    if (!largest.isEmpty())
        console.printStatus(tr("  largest: %1").arg(largest.join(u", "_s)) + u'\n');
    for (const auto &[path, bytes] : package.largestFiles) {
        if (bytes < BigFileBytes)
            break;
        console.printError(tr("warning: %1 is %2 and committed, so it is sent with every "
                              "submit; put data in a dataset (dataDir or --dataset), list it in "
                              ".gitignore and run 'git rm --cached %1', then commit")
                               .arg(path, Output::humanSize(bytes)) +
                           u'\n');
    }
}

Status SubmitCommand::uploadBlob(CliContext &context,
                                 const QString &label,
                                 const QString &path,
                                 const QString &sha256)
{
    ProgressBar bar(context.console(), label);
    Status status = context.runAuthorized([&](ApiClient &api) -> Status {
        BlobUpload blob(&api, path, sha256);
        QObject::connect(&blob, &BlobUpload::progress, [&bar](const TransferProgress &progress) {
            bar.update(progress);
        });
        blob.start();
        const Result<QString> &result = blob.waitForFinished();
        if (!result)
            return result.error();
        return Ok{};
    });
    bar.finish();
    return status;
}

// The dataset folder goes up as a manifest of blobs: only files the server lacks are sent.
Result<QString> SubmitCommand::uploadDataset(CliContext &context, const QString &folder)
{
    QString manifest;
    Status status = context.runAuthorized([&](ApiClient &api) -> Status {
        Result<QString> sent = DatasetCommand::send(context.console(), api, folder);
        if (!sent)
            return sent.error();
        manifest = *sent;
        return Ok{};
    });
    if (!status)
        return status.error();
    return manifest;
}

Status SubmitCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    std::optional<int> priority;
    if (arguments.isSet(u"priority"_s)) {
        bool ok = false;
        priority = arguments.value(u"priority"_s).toInt(&ok);
        if (!ok || *priority < -100 || *priority > 100)
            return Error::make(ErrorCode::Usage,
                               tr("--priority must be a whole number from -100 to 100"),
                               u"priority"_s);
    }
    if (arguments.isSet(u"task_config"_s) && arguments.isSet(u"job_config"_s)) {
        return Error::make(ErrorCode::Usage,
                           tr("pass either --task_config or --job_config, not both"),
                           u"job_config"_s);
    }
    const bool openPai = arguments.isSet(u"job_config"_s);
    const QString configPath = openPai ? arguments.value(u"job_config"_s)
                                       : arguments.value(u"task_config"_s, u"task.yaml"_s);
    const QFileInfo configInfo(configPath);
    if (!configInfo.isFile()) {
        return Error::make(ErrorCode::NotFound,
                           openPai ? tr("the job config %1 does not exist").arg(configPath)
                                   : tr("the task config %1 does not exist; pass "
                                        "--task_config=PATH_TO_TASK_YAML")
                                         .arg(configPath),
                           openPai ? u"job_config"_s : u"task_config"_s);
    }
    QFile configFile(configInfo.absoluteFilePath());
    if (!configFile.open(QIODevice::ReadOnly)) {
        return Error::make(ErrorCode::IoError,
                           tr("cannot read %1: %2").arg(configPath, configFile.errorString()));
    }
    const QByteArray configText = configFile.readAll();

    // The project is the folder ddlcli runs in, wherever the config lives (the seed's rule). An
    // OpenPAI job outside any repository goes without code: its command may need none.
    const QString projectFolder = QDir::currentPath();
    std::optional<ProjectFolder> project;
    if (Result<ProjectFolder> opened = ProjectFolder::open(projectFolder); opened)
        project.emplace(std::move(*opened));
    else if (!openPai || !opened.error().is(ErrorCode::NotARepository))
        return opened.error();

    // A task.yaml is read as the desktop's wizard reads it (ProjectConfig).
    const ProjectConfig taskConfig =
        openPai ? ProjectConfig() : ProjectConfig::fromTaskYaml(configText, projectFolder);
    const SpecParseResult parsed =
        openPai ? JobSpecParser::parsePaiConfigDetailed(configText) : taskConfig.parsed;
    if (!parsed.ok())
        return specError(configPath, parsed.errors);
    const JobSpec &spec = *parsed.spec;
    for (const QString &note : parsed.notes)
        context.console().printError(tr("note: %1").arg(note) + u'\n');

    // Before the dataset: run in the wrong folder, the missing main.py is what to hear about.
    if (project && !openPai) {
        if (Status runnable = project->checkMainFunction(); !runnable)
            return runnable;
    }

    QString datasetFolder;
    if (openPai) {
        datasetFolder = localDataFolder(spec.dataDir, projectFolder);
    } else {
        if (Status found = taskConfig.checkDatasetFolder(); !found)
            return found;
        datasetFolder = QFileInfo(taskConfig.datasetFolder).canonicalFilePath();
    }

    // Everything that can be refused locally is refused before anything is sent.
    if (project) {
        if (Status clean = project->checkClean(datasetFolder); !clean)
            return clean;
    }

    Console &console = context.console();
    const bool seedLines = *format == OutputFormat::Table;
    // Log in (or refresh) before the packing work, so that a stale session fails fast.
    if (seedLines)
        console.print(Output::banner(tr("Step 1: User login")));
    if (Result<ApiResponse> probe =
            context.sendAuthorized([](ApiClient &api) { return api.listJobs({1, 0, {}}); });
        !probe) {
        return probe.error();
    }

    if (seedLines)
        console.print(Output::banner(tr("Step 2: Submit task")));
    QTemporaryDir scratch;
    if (!scratch.isValid()) {
        return Error::make(ErrorCode::IoError,
                           tr("cannot create a temporary folder: %1").arg(scratch.errorString()));
    }
    Payload payload;
    if (project) {
        Result<PackageInfo> package = project->package(scratch.filePath(u"package.tar.zst"_s));
        if (!package)
            return package.error();
        for (const QString &warning : package->warnings)
            console.printError(tr("warning: %1").arg(warning) + u'\n');
        printPreflight(console, *package, project->rootPath());
        payload.package = *package;
    }
    if (payload.package) {
        if (Status sent = uploadBlob(
                context, tr("code   "), payload.package->archivePath, payload.package->sha256);
            !sent) {
            return sent;
        }
    }
    if (!datasetFolder.isEmpty()) {
        Result<QString> manifest = uploadDataset(context, datasetFolder);
        if (!manifest)
            return manifest.error();
        payload.datasetManifest = *manifest;
    }

    JobSubmit job;
    job.spec = spec.toJson();
    job.priority = priority;
    if (payload.package) {
        job.packageSha256 = payload.package->sha256;
        job.packageCommit = payload.package->commitId;
    }
    job.datasetManifest = payload.datasetManifest;
    job.allowUnschedulable = arguments.isSet(u"allow-unschedulable"_s);
    Result<ApiResponse> answer = sendJob(context, job);
    if (!answer)
        return answer.error();
    const QString uuid = answer->json().value("uuid"_L1).toString();
    // The seed's "job_type:"; the spec's kind when the server does not say.
    QString kind = answer->json().value("kind"_L1).toString();
    if (kind.isEmpty())
        kind = JobSpec::kindName(spec.kind);
    if (*format == OutputFormat::Json) {
        console.print(Output::jsonLine({{"job_uuid"_L1, uuid}, {"job_type"_L1, kind}}));
    } else {
        // scripts/demo.sh and tests read "job_uuid: " with sed: keep the line as it is.
        console.print(u"Status: "_s + QString::number(answer->status) + u'\n');
        console.print(u"job_uuid: "_s + uuid + u'\n');
        console.print(u"job_type: "_s + kind + u'\n');
    }
    return Ok{};
}

Result<ApiResponse> SubmitCommand::sendJob(CliContext &context, const JobSubmit &job)
{
    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.submitJob(job); });
    if (answer && answer->json().value("uuid"_L1).toString().isEmpty()) {
        return Error::make(ErrorCode::BadAnswer,
                           tr("the server accepted the job but sent no uuid; run ddlcli list to "
                              "find it"));
    }
    return answer;
}

} // namespace ddl::cli
