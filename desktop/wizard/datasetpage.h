#pragma once

#include <QWizardPage>

class QLabel;

namespace ddl::desktop {

class FolderField;

// Step 3: the dataset folder (optional): how many files and bytes it holds, counted off the GUI
// thread. It is packed and uploaded content-addressed: bytes the server has are not sent again.
class DatasetPage : public QWizardPage
{
    Q_OBJECT
public:
    explicit DatasetPage(QWidget *parent = nullptr);
    void initializePage() override;
    bool isComplete() const override;
    FolderField *folderField() const { return m_folder; }
    QString summary() const;

private:
    void measure();

    FolderField *m_folder;
    QLabel *m_summary;
    int m_generation = 0;
};

} // namespace ddl::desktop
