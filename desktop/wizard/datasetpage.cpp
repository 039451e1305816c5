#include "datasetpage.h"

#include "wizard/folderfield.h"

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
    , m_folder(new FolderField(tr("Dataset folder"), this))
    , m_summary(new QLabel(this))
{
    setTitle(tr("Dataset"));
    setSubTitle(tr("The folder your main() reads as dataset_dir. Leave it empty for none."));
    m_folder->setObjectName(u"datasetFolder"_s);
    m_summary->setObjectName(u"datasetSummary"_s);
    m_summary->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Dataset folder:"), this));
    layout->addWidget(m_folder);
    layout->addWidget(m_summary);
    layout->addStretch();
    registerField(u"dataset"_s, m_folder, "path", SIGNAL(pathChanged(QString)));
    connect(m_folder, &FolderField::pathChanged, this, [this] {
        measure();
        emit completeChanged();
    });
}

void DatasetPage::initializePage()
{
    // A DDL project usually keeps its data in ./data: offer it.
    const QString project = field(u"folder"_s).toString();
    if (m_folder->path().isEmpty() && !project.isEmpty() && QDir(project).exists(u"data"_s))
        m_folder->setPath(QDir(project).filePath(u"data"_s));
    measure();
}

bool DatasetPage::isComplete() const
{
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
        m_summary->setText(tr("%n file(s), %1. It is packed and uploaded when you submit; if the "
                              "server has the same bytes already, nothing is sent.",
                              nullptr, size.files)
                               .arg(QLocale().formattedDataSize(size.bytes)));
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
