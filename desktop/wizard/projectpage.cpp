#include "projectpage.h"

#include "wizard/folderfield.h"
#include "wizard/submitwizard.h"

#include <QDir>
#include <QLabel>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

ProjectPage::ProjectPage(bool needsRepository, QWidget *parent)
    : QWizardPage(parent)
    , m_folder(new FolderField(tr("Project folder"), this))
    , m_needsRepository(needsRepository)
{
    setTitle(tr("Project"));
    setSubTitle(needsRepository
                    ? tr("The git repository with your main.py. DDL sends the code of its last "
                         "commit.")
                    : tr("Optional: a git repository whose code the commands run in."));
    m_folder->setObjectName(u"projectFolder"_s);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Project folder:"), this));
    layout->addWidget(m_folder);
    layout->addStretch();
    registerField(u"folder"_s, m_folder, "path", SIGNAL(pathChanged(QString)));
    connect(m_folder, &FolderField::pathChanged, this, &QWizardPage::completeChanged);
}

bool ProjectPage::isComplete() const
{
    const QString path = m_folder->path();
    if (path.isEmpty())
        return !m_needsRepository;
    return QDir(path).exists();
}

int ProjectPage::nextId() const
{
    return m_folder->path().isEmpty() ? SubmitWizard::DatasetPage : SubmitWizard::GitPage;
}

} // namespace ddl::desktop
