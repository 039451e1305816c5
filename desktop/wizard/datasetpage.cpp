#include "datasetpage.h"

#include "api/apiclient.h"
#include "api/datasetupload.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "wizard/folderfield.h"
#include "wizard/submitwizard.h"

#include <QEvent>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonObject>

#include <QDir>
#include <QDirIterator>
#include <QFutureWatcher>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

namespace {
struct FolderSize
{
    int files = 0;
    qint64 bytes = 0;
};
} // namespace

DatasetPage::DatasetPage(QWidget *parent)
    : QWizardPage(parent)
    , m_folder(new FolderField(QString(), this))
    , m_summary(new QLabel(this))
    , m_serverCombo(new QComboBox(this))
    , m_plan(new QLabel(this))
{
    m_folder->setObjectName(u"datasetFolder"_s);
    m_summary->setObjectName(u"datasetSummary"_s);
    m_summary->setWordWrap(true);
    m_serverCombo->setObjectName(u"serverDatasets"_s);
    m_serverCombo->addItem(QString(), QString());
    m_useLabel = new QLabel(this);
    m_folderLabel = new QLabel(this);
    retranslateUi();
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_useLabel);
    layout->addWidget(m_serverCombo);
    layout->addWidget(m_folderLabel);
    layout->addWidget(m_folder);
    layout->addWidget(m_summary);
    m_plan->setObjectName(u"datasetPlan"_s);
    m_plan->setWordWrap(true);
    layout->addWidget(m_plan);
    layout->addStretch();
    registerField(u"dataset"_s, m_folder, "path", SIGNAL(pathChanged(QString)));
    // A dataset on the server is used as it is there: nothing to upload.
    connect(m_serverCombo, &QComboBox::currentIndexChanged, this, [this] {
        m_folder->setEnabled(serverDataset().isEmpty());
        measure();
        emit completeChanged();
    });
    connect(m_folder, &FolderField::pathChanged, this, [this] {
        measure();
        emit completeChanged();
    });
}

void DatasetPage::retranslateUi()
{
    setTitle(tr("Dataset"));
    setSubTitle(tr("The folder your main() reads as dataset_dir. Leave it empty for none."));
    m_serverCombo->setItemText(0, tr("A folder on this computer"));
    m_useLabel->setText(tr("Use:"));
    m_folderLabel->setText(tr("Dataset folder:"));
    m_folder->setDialogTitle(tr("Dataset folder"));
}

void DatasetPage::changeEvent(QEvent *event)
{
    QWizardPage::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
}

QString DatasetPage::plan() const
{
    return m_plan->text();
}

void DatasetPage::planUpload(const QString &folder, int generation)
{
    ApiClient *client = static_cast<SubmitWizard *>(wizard())->client();
    if (!client)
        return;
    m_plan->setText(tr("Asking the server which files it has…"));
    // A dry run: hash the files, ask the server, send nothing.
    auto *plan = new DatasetUpload(client, folder, this);
    plan->setDryRun(true);
    connect(plan,
            &DatasetUpload::finished,
            this,
            [this, plan, generation] {
                plan->deleteLater();
                if (generation != m_generation)
                    return;
                if (!plan->result()) {
                    m_plan->setText(ErrorText::describe(plan->result().error()));
                } else {
                    const QLocale locale;
                    const int files = int(plan->manifest().files().size());
                    m_plan->setText(tr("To upload: %1 (%2 of %n file(s)); the server has the "
                                       "rest.", nullptr, files)
                                        .arg(locale.formattedDataSize(plan->bytesToSend()))
                                        .arg(m_planCount));
                }
                emit planned();
            });
    connect(plan, &DatasetUpload::planned, this, [this](const QStringList &paths) {
        m_planCount = int(paths.size());
    });
    plan->start();
}

QString DatasetPage::serverDataset() const
{
    return m_serverCombo->currentData().toString();
}

void DatasetPage::listServerDatasets()
{
    ApiClient *client = static_cast<SubmitWizard *>(wizard())->client();
    if (m_listed || !client)
        return;
    m_listed = true;
    whenFinished(client->datasets(), this, [this](const Result<ApiResponse> &result) {
        if (!result)
            return; // an older server without datasets: the folder it is
        const QJsonArray datasets = result->json().value("datasets"_L1).toArray();
        for (const QJsonValue &value : datasets) {
            const QJsonObject dataset = value.toObject();
            const QString name = dataset.value("name"_L1).toString();
            m_serverCombo->addItem(
                tr("%1 on the server (%n file(s), %2)", nullptr,
                   int(dataset.value("file_count"_L1).toInteger()))
                    .arg(name, QLocale().formattedDataSize(
                                    dataset.value("total_size"_L1).toInteger())),
                name);
        }
        emit serverDatasetsListed(int(datasets.size()));
    });
}

void DatasetPage::initializePage()
{
    listServerDatasets();
    // The project's task.yaml names its dataset; without one, a DDL project usually keeps its
    // data in ./data: offer that.
    const auto *submit = static_cast<const SubmitWizard *>(wizard());
    const QString project = field(u"folder"_s).toString();
    if (!submit->projectDatasetFolder().isEmpty() && m_shownGeneration != submit->specGeneration())
        m_folder->setPath(submit->projectDatasetFolder());
    else if (m_folder->path().isEmpty() && !project.isEmpty() && QDir(project).exists(u"data"_s))
        m_folder->setPath(QDir(project).filePath(u"data"_s));
    m_shownGeneration = submit->specGeneration();
    measure();
}

bool DatasetPage::isComplete() const
{
    if (!serverDataset().isEmpty())
        return true;
    return m_folder->path().isEmpty() || QDir(m_folder->path()).exists();
}

QString DatasetPage::summary() const
{
    return m_summary->text();
}

void DatasetPage::measure()
{
    const QString path = m_folder->path();
    const int generation = ++m_generation;
    m_plan->clear();
    if (!serverDataset().isEmpty()) {
        m_summary->setText(tr("The server has this dataset already: nothing is uploaded."));
        return;
    }
    if (path.isEmpty()) {
        m_summary->setText(tr("No dataset."));
        return;
    }
    if (!QDir(path).exists()) {
        m_summary->setText(tr("%1 is not a folder.").arg(path));
        return;
    }
    m_summary->setText(tr("Counting…"));
    auto *watcher = new QFutureWatcher<FolderSize>(this);
    connect(watcher, &QFutureWatcher<FolderSize>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        const FolderSize size = watcher->result();
        m_summary->setText(tr("%n file(s), %1.", nullptr, size.files)
                               .arg(QLocale().formattedDataSize(size.bytes)));
        planUpload(m_folder->path(), generation);
    });
    watcher->setFuture(QtConcurrent::run([path] {
        FolderSize size;
        QDirIterator it(path, QDir::Files | QDir::Hidden | QDir::NoSymLinks,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            ++size.files;
            size.bytes += it.fileInfo().size();
        }
        return size;
    }));
}

} // namespace ddl::desktop
